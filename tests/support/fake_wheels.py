#!/usr/bin/env python3
"""Fake PyTorch wheels for the tests: real, pip-installable wheels, built
here, never downloaded.

    fake_wheels.py [options] OUT NAME VERSION CPTAG [NAME VERSION CPTAG]...

    fake_wheels.py --folder rocm-rel-7.2.2 --bundled-hsa OUT \\
        torch 2.9.1+rocm7.2.2.lw.git127a149a cp311 \\
        triton 3.5.1+rocm7.2.2.gita272dfa8 cp311

NAME is one of torch, torchvision, torchaudio, triton, pytorch_triton_rocm,
numpy, or one of the ROCm Core SDK's Python wheels (AMD's whl-next index):
rocm, rocm-sdk-core, rocm-sdk-libraries, rocm-sdk-device-TARGET (gfx1100,
all, ...). Each wheel is a zip in the binary distribution format (PEP 427): a
.dist-info folder with WHEEL, METADATA (core metadata 2.1, Requires-Dist
naming the other wheels of the same run) and RECORD (every file with its
urlsafe-base64 SHA-256 and size), so pip installs it as it installs the
vendors' wheels. The wheels go to OUT/FOLDER/ side by side (a find-links
folder, as repo.radeon.com's rocm-rel-X listing), and OUT/INDEX/ is a PEP 503
simple index of every wheel in OUT/FOLDER/ (INDEX/index.html, and
INDEX/<normalized name>/index.html with <a href="...whl#sha256=HEX">, links
relative so that the tree works over https:// and as a file: path).

Prints one line per wheel written: NAME VERSION FILE SHA256 (hex).

The fake torch decides from the machine it runs on, as the real one fails
(docs/testing.md, "Fake PyTorch wheels"): see TORCH_MACHINE below. With
--rocm-sdk a ROCm torch is the Core SDK's: it loads ROCm from the venv's
rocm-sdk-* wheels, never from /opt/rocm, and runs kernels only with the
device wheel of this GPU's target (rocm-sdk-device-gfx1100, or -all).
"""
import argparse
import base64
import hashlib
import io
import os
import re
import sys
import urllib.parse
import zipfile

KNOWN = ("torch", "torchvision", "torchaudio", "triton", "pytorch_triton_rocm", "numpy",
         "rocm", "rocm-sdk-core", "rocm-sdk-libraries")
# The Core SDK's device wheels: one per GPU target, or every target.
ROCM_SDK_DEVICE = re.compile(r"rocm-sdk-device-(gfx[0-9a-f]+|all)")
# The GPU of the test machine (the device name below, rocminfo's gfx1100).
GPU_TARGET = "gfx1100"
# Fixed zip timestamps: the same arguments give the same bytes (and hashes).
EPOCH = (2024, 1, 1, 0, 0, 0)

# What decides torch.cuda.is_available(), read at run time from the root.
TORCH_MACHINE = r'''"""The machine, as the fake torch sees it (written by tests/support/fake_wheels.py)."""
import glob
import os
import re
import stat
import subprocess

BUILD = @BUILD@            # "rocm" or "cuda"
WHEEL_CUDA = @CUDA@        # "13.0" for a +cu130 build
KERNELS = @KERNELS@        # False: a wheel without this GPU's architecture
ROCM_SDK = @ROCM_SDK@      # True: the Core SDK's torch, ROCm from the venv's rocm-sdk-* wheels
GPU_TARGET = @GPU_TARGET@
LIB = os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib")
WSL_RUNTIME = "/opt/rocm/lib/libhsa-runtime64.so.1"
ROCDXG = "/opt/rocm/lib/librocdxg.so"
LIBCUDA = "/usr/lib/wsl/lib/libcuda.so.1"
NVIDIA_SMI = "/usr/lib/wsl/lib/nvidia-smi"


def has_dxg():
    try:
        return stat.S_ISCHR(os.stat("/dev/dxg").st_mode)
    except OSError:
        return False


def legacy_runtime():
    # The test repository's hsa-runtime-rocr4wsl-amdgpu installs this file
    # with "(WSL build)" in it (tests/realroot/testrepo.sh).
    try:
        with open(WSL_RUNTIME, "rb") as f:
            return b"(WSL build)" in f.read(4096)
    except OSError:
        return False


def bundled_hsa():
    return sorted(glob.glob(os.path.join(LIB, "libhsa-runtime64.so*")))


def driver_cuda():
    """The CUDA release the Windows driver supports, as its nvidia-smi prints
    it (the tests' stand-in for cuDriverGetVersion); None when unknown."""
    try:
        out = subprocess.run([NVIDIA_SMI], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    m = re.search(r"CUDA Version:\s*(\d+)\.(\d+)", out)
    return (int(m.group(1)), int(m.group(2))) if m else None


def sdk_module(name):
    """The folder of the venv's module NAME (a rocm-sdk-* wheel's), or None."""
    import importlib.util
    spec = importlib.util.find_spec(name)
    return os.path.dirname(spec.origin) if spec and spec.origin else None


def sdk_kernels():
    """The device wheel with this GPU's code objects, or None."""
    return sdk_module("_rocm_sdk_device_" + GPU_TARGET) or sdk_module("_rocm_sdk_device_all")


def kernels():
    """Whether kernels run once the GPU is available."""
    if not KERNELS:
        return False
    return sdk_kernels() is not None if ROCM_SDK else True


def why_not():
    """None when the GPU can be used; else why not, in words."""
    if not has_dxg():
        return "no /dev/dxg: the GPU is not shared with this distribution"
    if ROCM_SDK:
        # TheRock's rocm_sdk/_dist_info.py: librocdxg is in the core wheel.
        core = sdk_module("_rocm_sdk_core")
        if core is None:
            return "rocm-sdk-core is not installed in this venv: no ROCm runtime"
        if not os.path.exists(os.path.join(core, "lib", "librocdxg.so")):
            return "the venv's rocm-sdk-core has no librocdxg.so"
        return None
    if BUILD == "cuda":
        if not os.path.exists(LIBCUDA):
            return LIBCUDA + " is missing: no WSL driver stub"
        driver = driver_cuda()
        wheel = tuple(int(x) for x in WHEEL_CUDA.split("."))
        if driver is not None and driver < wheel:
            # torch's own words (with cuDriverGetVersion's number).
            return ("The NVIDIA driver on your system is too old (found version %d). "
                    "Please update your GPU driver" % (driver[0] * 1000 + driver[1] * 10))
        return None
    if os.path.exists(ROCDXG):
        if os.environ.get("HSA_ENABLE_DXG_DETECTION") != "1":
            return "HSA_ENABLE_DXG_DETECTION is not 1: the runtime does not load librocdxg"
        return None
    if legacy_runtime():
        shadow = bundled_hsa()
        if shadow:
            return "torch/lib holds " + ", ".join(os.path.basename(p) for p in shadow) + ", which shadows the WSL runtime"
        return None
    return "no ROCm runtime for WSL: neither librocdxg nor the legacy WSL runtime is in /opt/rocm/lib"
'''

TORCH_INIT = r'''"""A fake torch for tests (tests/support/fake_wheels.py): no tensors, only
what a smoke test needs."""
import os as _os

if @ROCM_SDK@:
    # The Core SDK's torch preloads ROCm's libraries from the rocm wheel.
    import rocm_sdk  # noqa: F401
if @LIGHTWEIGHT@ and not _os.path.exists("/opt/rocm/lib/libroctx64.so.4"):
    # AMD's lightweight (.lw) wheels load ROCm's libraries from /opt/rocm,
    # and fail here without the full userspace (only the runtime installed).
    raise ImportError("libroctx64.so.4: cannot open shared object file: No such file or directory")
__version__ = @RUNTIME_VERSION@
from . import version
from . import cuda
from ._tensor import Tensor, ones


def _torchrun():
    print("torchrun (fake)")
'''

TORCH_VERSION = r'''__version__ = @RUNTIME_VERSION@
git_version = @GIT@
hip = @HIP@
cuda = @CUDA@
'''

TORCH_CUDA = r'''"""torch.cuda of the fake torch."""
from .. import _machine

_NAME = @DEVICE_NAME@
_API = "CUDA" if _machine.BUILD == "cuda" else "HIP"


def is_available():
    return _machine.why_not() is None


def device_count():
    return 1 if is_available() else 0


def get_device_name(device=0):
    if not _machine.has_device():
        raise RuntimeError("No HIP GPUs are available" if _API == "HIP" else "Found no NVIDIA driver on your system.")
    return _NAME


def _kernels_run():
    return is_available() and _machine.kernels()


def synchronize(device=None):
    if not _kernels_run():
        raise RuntimeError(_API + " error: no kernel image is available for execution on the device")


def _why_not():
    """Why is_available() is False (tests only); None when it is True."""
    return _machine.why_not()
'''

TORCH_TENSOR = r'''"""Tensors of one repeated value: enough for ones(), @, sum() and float()."""
from . import cuda as _cuda
from . import _machine


class Tensor:
    def __init__(self, shape, value, device):
        self.shape = tuple(shape)
        self._value = float(value)
        self.device = device

    def __matmul__(self, other):
        if self.device != other.device:
            raise RuntimeError("Expected all tensors to be on the same device")
        if len(self.shape) != 2 or len(other.shape) != 2 or self.shape[1] != other.shape[0]:
            raise RuntimeError("mat1 and mat2 shapes cannot be multiplied")
        return Tensor((self.shape[0], other.shape[1]), self._value * other._value * self.shape[1], self.device)

    def sum(self):
        n = 1
        for d in self.shape:
            n *= d
        return Tensor((), self._value * n, self.device)

    def item(self):
        if self.shape not in ((), (1,)):
            raise RuntimeError("a Tensor with more than one element cannot be converted to Scalar")
        if self.device == "cuda":
            _cuda.synchronize()
        return self._value

    def __float__(self):
        return float(self.item())


def ones(*size, device="cpu", dtype=None):
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    device = str(device).split(":")[0]
    if device == "cuda" and not _machine.has_device():
        raise RuntimeError("No HIP GPUs are available" if _machine.BUILD == "rocm" else "Found no NVIDIA driver on your system.")
    return Tensor(size, 1.0, device)
'''


def dist_escape(name):
    """The distribution name as file names write it (PEP 427): runs of -_. become _."""
    return re.sub(r"[-_.]+", "_", name)


def normalize(name):
    """PEP 503's normalized name."""
    return re.sub(r"[-_.]+", "-", name).lower()


def urlsafe_sha256(data):
    return base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def pystr(value):
    return "None" if value is None else repr(value)


def platform_for(name, version):
    # AMD's wheels are linux_x86_64; PyTorch's and NumPy's are manylinux.
    if name.startswith("rocm-sdk-"):
        return "manylinux_2_28_x86_64"
    if name == "numpy" or "+cu" in version or "+" not in version and name in ("torch", "triton"):
        return "manylinux_2_28_x86_64"
    return "linux_x86_64"


def torch_files(version, bundled_hsa, kernels, rocm_sdk=False):
    local = version.split("+", 1)[1] if "+" in version else ""
    # The installed distribution says 2.9.1+rocm7.2.2.lw.git127a149a,
    # torch.__version__ 2.9.1+rocm7.2.2.git127a149a (without ".lw").
    runtime_version = version.replace(".lw.", ".")
    git = re.search(r"git([0-9a-f]+)", local)
    hip = cuda = None
    rocm = re.match(r"rocm(\d+)\.(\d+)(?:\.(\d+))?", local)
    cu = re.match(r"cu(\d+)(\d)$", local)
    if rocm:
        build, hip = "rocm", ".".join(g for g in rocm.groups() if g is not None)
        device = "AMD Radeon RX 7900 XTX"
    elif cu:
        build, cuda = "cuda", cu.group(1) + "." + cu.group(2)
        device = "NVIDIA GeForce RTX 4090"
    else:
        raise SystemExit("fake_wheels.py: a torch version needs a +rocmX.Y or +cuXYZ local version, not " + version)

    def fill(template):
        return (template.replace("@RUNTIME_VERSION@", repr(runtime_version))
                .replace("@GIT@", pystr(git.group(1) if git else None))
                .replace("@HIP@", pystr(hip)).replace("@CUDA@", pystr(cuda))
                .replace("@BUILD@", repr(build)).replace("@KERNELS@", repr(kernels))
                .replace("@ROCM_SDK@", repr(rocm_sdk and build == "rocm")).replace("@GPU_TARGET@", repr(GPU_TARGET))
                .replace("@DEVICE_NAME@", repr(device))
                .replace("@LIGHTWEIGHT@", repr(".lw." in version)))

    machine = fill(TORCH_MACHINE) + "\n\ndef has_device():\n    return has_dxg()\n"
    files = {
        "torch/__init__.py": fill(TORCH_INIT),
        "torch/version.py": fill(TORCH_VERSION),
        "torch/cuda/__init__.py": fill(TORCH_CUDA),
        "torch/_tensor.py": TORCH_TENSOR,
        "torch/_machine.py": machine,
    }
    if build == "rocm":
        files["torch/lib/libtorch_hip.so"] = "fake libtorch_hip (%s)\n" % version
        if bundled_hsa:
            # What AMD's legacy wheels bring along, and the WSL runtime must replace.
            files["torch/lib/libhsa-runtime64.so"] = "fake bundled libhsa-runtime64 (%s)\n" % version
            files["torch/lib/libhsa-runtime64.so.1"] = "fake bundled libhsa-runtime64 (%s)\n" % version
    else:
        files["torch/lib/libtorch_cuda.so"] = "fake libtorch_cuda (%s)\n" % version
    return files


def rocm_sdk_files(name, version):
    """The Core SDK's Python wheels (TheRock's layout, much reduced): rocm is
    the rocm_sdk module, each rocm-sdk-* wheel an _rocm_sdk_* one."""
    if name == "rocm":
        return {"rocm_sdk/__init__.py": '"""A fake rocm_sdk for tests."""\n__version__ = %r\n' % version}
    module = "_" + name.replace("-", "_")
    files = {module + "/__init__.py": '"""A fake %s for tests."""\n__version__ = %r\n' % (name, version)}
    if name == "rocm-sdk-core":
        files[module + "/lib/libamdhip64.so.7"] = "fake libamdhip64.so.7 (ROCm Core SDK %s wheel)\n" % version
        files[module + "/lib/librocdxg.so"] = "fake librocdxg (ROCm Core SDK %s wheel)\n" % version
    elif name == "rocm-sdk-libraries":
        files[module + "/lib/librocblas.so.5"] = "fake librocblas.so.5 (ROCm Core SDK %s wheel)\n" % version
    else:
        target = ROCM_SDK_DEVICE.fullmatch(name).group(1)
        files[module + "/lib/rocblas/library/TensileLibrary_%s.co" % target] = "fake code objects for %s\n" % target
    return files


def package_files(name, version, args):
    if name == "torch":
        return torch_files(version, args.bundled_hsa, not args.no_kernels, args.rocm_sdk)
    if name.startswith("rocm"):
        return rocm_sdk_files(name, version)
    module = {"pytorch_triton_rocm": "triton"}.get(name, name)
    body = '"""A fake %s for tests (tests/support/fake_wheels.py)."""\n__version__ = %r\n' % (name, version)
    if name in ("torchvision", "torchaudio"):
        body += "import torch  # noqa: F401  (as the real one, it needs torch)\n"
    return {module + "/__init__.py": body}


def device_targets(specs):
    """The GPU targets of the run's rocm-sdk-device-* wheels."""
    return [ROCM_SDK_DEVICE.fullmatch(n).group(1) for n, _, _ in specs if ROCM_SDK_DEVICE.fullmatch(n)]


def provided_extras(name, specs):
    """Provides-Extra: rocm's libraries and device-TARGET, torch's device-TARGET
    (only with rocm in the run: the Core SDK's torch)."""
    names = {n for n, _, _ in specs}
    if name == "rocm":
        return ["libraries"] + ["device-" + t for t in device_targets(specs)]
    if name == "torch" and "rocm" in names:
        return ["device-" + t for t in device_targets(specs)]
    return []


def requirements(name, specs):
    """Requires-Dist lines: each wheel needs the others of the run as the real ones do."""
    versions = {n: v for n, v, _ in specs}
    reqs = []
    if name == "rocm":
        # AMD's `pip install "rocm[libraries,device-gfxNNNN]==X"`: the runtime
        # always, the libraries and one target's kernels as extras.
        reqs.append("rocm-sdk-core==%s" % versions[name])
        if "rocm-sdk-libraries" in versions:
            reqs.append('rocm-sdk-libraries==%s; extra == "libraries"' % versions["rocm-sdk-libraries"])
        for t in device_targets(specs):
            reqs.append('rocm-sdk-device-%s==%s; extra == "device-%s"' % (t, versions["rocm-sdk-device-" + t], t))
    if name == "torch" and "rocm" in versions:
        # The Core SDK's torch: ROCm's libraries from the rocm wheel, and
        # the kernels of the target its device-TARGET extra names.
        reqs.append("rocm[libraries]==%s" % versions["rocm"])
        for t in device_targets(specs):
            reqs.append('rocm[device-%s]==%s; extra == "device-%s"' % (t, versions["rocm"], t))
    if name == "torch":
        for triton in ("triton", "pytorch_triton_rocm"):
            if triton in versions:
                reqs.append("%s==%s" % (normalize(triton), versions[triton]))
    if name in ("torchvision", "torchaudio"):
        reqs.append("torch==%s" % versions["torch"] if "torch" in versions else "torch")
    if name == "torchvision":
        reqs.append("numpy")
    return reqs


def build_wheel(name, version, cp, specs, args):
    platform = platform_for(name, version)
    # The Core SDK's ROCm wheels hold no Python extension: py3-none (rocm
    # itself pure Python), as TheRock builds them.
    tag = ("py3-none-any" if name == "rocm" else "py3-none-" + platform) if name.startswith("rocm") else \
        "%s-%s-%s" % (cp, cp, platform)
    dist = dist_escape(name)
    info = "%s-%s.dist-info" % (dist, version)
    files = {p: c.encode() for p, c in package_files(name, version, args).items()}
    metadata = "Metadata-Version: 2.1\nName: %s\nVersion: %s\nSummary: fake %s for tests (not the real one)\n" % (
        name, version, name)
    for extra in provided_extras(name, specs):
        metadata += "Provides-Extra: %s\n" % extra
    for req in requirements(name, specs):
        metadata += "Requires-Dist: %s\n" % req
    files[info + "/METADATA"] = metadata.encode()
    files[info + "/WHEEL"] = ("Wheel-Version: 1.0\nGenerator: wslgpu-setup tests/support/fake_wheels.py\n"
                              "Root-Is-Purelib: false\nTag: %s\n" % tag).encode()
    if name == "torch":
        files[info + "/entry_points.txt"] = b"[console_scripts]\ntorchrun = torch:_torchrun\n"
    files[info + "/top_level.txt"] = (sorted({p.split("/")[0] for p in files if "/" in p and ".dist-info" not in p})[0] + "\n").encode()
    record = io.StringIO()
    for path in sorted(files):
        record.write("%s,sha256=%s,%d\n" % (path, urlsafe_sha256(files[path]), len(files[path])))
    record.write("%s/RECORD,,\n" % info)
    files[info + "/RECORD"] = record.getvalue().encode()

    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        # .dist-info last, as PEP 427 recommends.
        for path in sorted(files, key=lambda p: (".dist-info/" in p, p)):
            zi = zipfile.ZipInfo(path, EPOCH)
            zi.external_attr = 0o644 << 16
            zi.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(zi, files[path])
    return "%s-%s-%s.whl" % (dist, version, tag), out.getvalue()


def write_index(out, folder, index, metadata=False):
    """A PEP 503 simple index at OUT/INDEX of every wheel in OUT/FOLDER.
    With METADATA, each wheel's METADATA is also served beside it as
    FILE.whl.metadata, and each link announces it with its SHA-256
    (data-core-metadata and the older data-dist-info-metadata), as PyPI's
    simple pages do (PEP 658, PEP 714): a resolver reads a wheel's
    Requires-Dist without downloading the wheel."""
    wheels = {}
    for f in sorted(os.listdir(os.path.join(out, folder))):
        if f.endswith(".whl"):
            wheels.setdefault(normalize(f.split("-")[0]), []).append(f)
    root = os.path.join(out, index)
    os.makedirs(root, exist_ok=True)
    with open(os.path.join(root, "index.html"), "w") as page:
        page.write("<!DOCTYPE html>\n<html><body>\n")
        for project in sorted(wheels):
            page.write('<a href="%s/">%s</a><br>\n' % (project, project))
        page.write("</body></html>\n")
    for project, files in wheels.items():
        pdir = os.path.join(root, project)
        os.makedirs(pdir, exist_ok=True)
        rel = os.path.relpath(os.path.join(out, folder), pdir)
        with open(os.path.join(pdir, "index.html"), "w") as page:
            page.write("<!DOCTYPE html>\n<html><body>\n")
            for f in files:
                with open(os.path.join(out, folder, f), "rb") as w:
                    data = w.read()
                digest = hashlib.sha256(data).hexdigest()
                href = urllib.parse.quote("%s/%s" % (rel, f))
                announce = ""
                if metadata:
                    with zipfile.ZipFile(io.BytesIO(data)) as z:
                        meta = z.read([n for n in z.namelist() if n.endswith(".dist-info/METADATA")][0])
                    with open(os.path.join(out, folder, f + ".metadata"), "wb") as m:
                        m.write(meta)
                    h = hashlib.sha256(meta).hexdigest()
                    announce = ' data-core-metadata="sha256=%s" data-dist-info-metadata="sha256=%s"' % (h, h)
                page.write('<a href="%s#sha256=%s"%s>%s</a><br>\n' % (href, digest, announce, f))
            page.write("</body></html>\n")


def parse_specs(parser, spec, known):
    """The command line's NAME VERSION CPTAG triples, each NAME one of KNOWN
    (fake_framework_wheels.py parses its own the same way)."""
    if len(spec) % 3:
        parser.error("wheels are given as NAME VERSION CPTAG triples")
    specs = [tuple(spec[i:i + 3]) for i in range(0, len(spec), 3)]
    for name, version, cp in specs:
        if name not in known:
            parser.error("%s: not one of %s" % (name, ", ".join(known)))
        if not re.fullmatch(r"cp3\d+", cp):
            parser.error("%s: the python tag is cpXY, such as cp311, not %s" % (name, cp))
    return specs


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--folder", default="wheels", help="the find-links folder under OUT (default: wheels)")
    p.add_argument("--index", default="simple", help="the PEP 503 index under OUT (default: simple)")
    p.add_argument("--bundled-hsa", action="store_true",
                   help="a ROCm torch ships torch/lib/libhsa-runtime64.so and .so.1, as AMD's legacy wheels do")
    p.add_argument("--no-kernels", action="store_true",
                   help="torch lacks this GPU's architecture: is_available() may be True, kernels still fail")
    p.add_argument("--rocm-sdk", action="store_true",
                   help="a ROCm torch is the Core SDK's: ROCm from the venv's rocm-sdk-* wheels, kernels only with "
                        "the device wheel of this GPU's target")
    p.add_argument("out")
    p.add_argument("spec", nargs="+", help="NAME VERSION CPTAG, repeated")
    args = p.parse_args(argv)
    specs = parse_specs(p, args.spec, KNOWN + tuple(n for n in args.spec[0::3] if ROCM_SDK_DEVICE.fullmatch(n)))
    folder = os.path.join(args.out, args.folder)
    os.makedirs(folder, exist_ok=True)
    for name, version, cp in specs:
        filename, data = build_wheel(name, version, cp, specs, args)
        with open(os.path.join(folder, filename), "wb") as f:
            f.write(data)
        print(name, version, filename, hashlib.sha256(data).hexdigest())
    write_index(args.out, args.folder, args.index)


if __name__ == "__main__":
    main(sys.argv[1:])
