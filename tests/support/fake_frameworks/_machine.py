"""The machine, as the fake frameworks see it (tests/support/fake_framework_wheels.py)."""
import os
import re
import stat
import subprocess

LIBCUDA = "/usr/lib/wsl/lib/libcuda.so.1"
NVIDIA_SMI = "/usr/lib/wsl/lib/nvidia-smi"
# site-packages: this file is site-packages/<package>/_machine.py.
SITE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def has_dxg():
    try:
        return stat.S_ISCHR(os.stat("/dev/dxg").st_mode)
    except OSError:
        return False


def has_libcuda():
    return os.path.exists(LIBCUDA)


def driver():
    """The driver version nvidia-smi prints ("Driver Version: 591.86" or, with
    -q, "Driver Version : 537.13") as a tuple of ints; None when unknown."""
    try:
        out = subprocess.run([NVIDIA_SMI], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    m = re.search(r"Driver Version\s*:\s*([0-9][0-9.]*)", out)
    return tuple(int(x) for x in m.group(1).strip(".").split(".")) if m else None


def missing(files):
    """The FILES (paths under site-packages) that are not there."""
    return [f for f in files if not os.path.exists(os.path.join(SITE, f))]


def cuda_why_not():
    """None when libcuda can reach the GPU; else why not."""
    if not has_libcuda():
        return "libcuda.so.1: cannot open shared object file: No such file or directory"
    if not has_dxg():
        return "CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected (no /dev/dxg)"
    return None
