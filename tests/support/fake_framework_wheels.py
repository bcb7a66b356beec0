#!/usr/bin/env python3
"""Fake TensorFlow, JAX and ONNX Runtime wheels for the tests, with the
nvidia-* wheels they load: real, pip-installable wheels, built here, never
downloaded.

    fake_framework_wheels.py [--folder F] [--index I] [--hollow NAME]... OUT \\
        NAME VERSION CPTAG [NAME VERSION CPTAG]...

    fake_framework_wheels.py --folder pypi/files --index pypi OUT \\
        onnxruntime-gpu 1.26.0 cp311 nvidia-cudnn-cu12 9.8.0.87 cp311 numpy 2.1.0 cp311

NAME is one of KNOWN below (tensorflow, jax, jaxlib, jax-cuda12-plugin,
jax-cuda12-pjrt, jax-cuda13-plugin, jax-cuda13-pjrt, onnxruntime-gpu, onnx,
numpy and the nvidia-* wheels of NVIDIA_LIBS). The wheel format, the file
names, the find-links folder OUT/FOLDER/ and the PEP 503 index OUT/INDEX/
(which announces and serves each wheel's METADATA, as PyPI's does: PEP 658/714)
are tests/support/fake_wheels.py's (its helpers, imported); this file only
says what each wheel holds and requires. The fake modules' texts live in
tests/support/fake_frameworks/, one file each, laid out as the wheels' trees
(its README.md): this file reads them from beside itself and fills the
@PLACEHOLDERS@ of the NAME.in templates (the version, the libraries, the
plugin's CUDA major and driver floor). Prints one line per wheel written:
NAME VERSION FILE SHA256 (hex), as fake_wheels.py does.

METADATA says what the real wheels' says where it matters to the profiles
(docs/testing.md, "Fake framework wheels"): `Provides-Extra` and
`Requires-Dist: ...; extra == "and-cuda"` (tensorflow), `extra == "cuda12"`
(jax) and `extra == "with-cuda"` (the JAX plugins), the pins of jax on
jaxlib and on the plugin. A requirement names the run's version of the
other wheel by the run's version where the real one pins it (jax on jaxlib
and its plugin: `<=V,>=V`); the nvidia-* floors and ranges are the real
ones, so one run's wheels resolve together. The real wheels' pure-Python
requirements (absl-py, protobuf, keras, coloredlogs ...) are left out: no
profile step or check depends on them.

--hollow NAME builds that wheel without its library (an nvidia-* wheel with
only its Python package): what a wheel that lost its files is like, for a
smoke check that must fail.

The frameworks decide at run time from the root, as the real ones fail:
see fake_frameworks/_machine.py (MACHINE below) and each framework's module.
"""
import argparse
import hashlib
import importlib.util
import io
import os
import re
import sys
import zipfile

# fake_wheels.py's helpers (file names, hashes, the index), imported from
# beside this file: one wheel format for all the fakes.
_spec = importlib.util.spec_from_file_location(
    "fake_wheels", os.path.join(os.path.dirname(os.path.abspath(__file__)), "fake_wheels.py"))
fw = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fw)

# Each nvidia-* wheel's library, the file a framework loads from it, under
# site-packages (NVIDIA's layout: nvidia/<component>/lib/ for the CUDA 12
# wheels, nvidia/cu13/lib/ for the CUDA 13 ones).
NVIDIA_LIBS = {
    "nvidia-cublas-cu12": "nvidia/cublas/lib/libcublas.so.12",
    "nvidia-cuda-cupti-cu12": "nvidia/cuda_cupti/lib/libcupti.so.12",
    "nvidia-cuda-nvcc-cu12": "nvidia/cuda_nvcc/bin/ptxas",
    "nvidia-cuda-nvrtc-cu12": "nvidia/cuda_nvrtc/lib/libnvrtc.so.12",
    "nvidia-cuda-runtime-cu12": "nvidia/cuda_runtime/lib/libcudart.so.12",
    "nvidia-cudnn-cu12": "nvidia/cudnn/lib/libcudnn.so.9",
    "nvidia-cufft-cu12": "nvidia/cufft/lib/libcufft.so.11",
    "nvidia-curand-cu12": "nvidia/curand/lib/libcurand.so.10",
    "nvidia-cusolver-cu12": "nvidia/cusolver/lib/libcusolver.so.11",
    "nvidia-cusparse-cu12": "nvidia/cusparse/lib/libcusparse.so.12",
    "nvidia-nccl-cu12": "nvidia/nccl/lib/libnccl.so.2",
    "nvidia-nvjitlink-cu12": "nvidia/nvjitlink/lib/libnvJitLink.so.12",
    "nvidia-cublas": "nvidia/cu13/lib/libcublas.so.13",
    "nvidia-cuda-runtime": "nvidia/cu13/lib/libcudart.so.13",
    "nvidia-cudnn-cu13": "nvidia/cudnn/lib/libcudnn.so.9",
    "nvidia-cufft": "nvidia/cu13/lib/libcufft.so.12",
    "nvidia-cusolver": "nvidia/cu13/lib/libcusolver.so.12",
    "nvidia-cusparse": "nvidia/cu13/lib/libcusparse.so.12",
    "nvidia-nvjitlink": "nvidia/cu13/lib/libnvJitLink.so.13",
    "nvidia-nccl-cu13": "nvidia/nccl/lib/libnccl.so.2",
}

# tensorflow[and-cuda]: modelled on tensorflow/tools/pip_package/setup.py's
# EXTRA_PACKAGES['and-cuda'] (ranges, CUDA 12.5 and cuDNN 9.3 at least).
TF_AND_CUDA = [
    ("nvidia-cublas-cu12", ">=12.5.3.2,<13.0"), ("nvidia-cuda-cupti-cu12", ">=12.5.82,<13.0"),
    ("nvidia-cuda-nvcc-cu12", ">=12.5.82,<13.0"), ("nvidia-cuda-nvrtc-cu12", ">=12.5.82,<13.0"),
    ("nvidia-cuda-runtime-cu12", ">=12.5.82,<13.0"), ("nvidia-cudnn-cu12", ">=9.3.0.75,<10.0"),
    ("nvidia-cufft-cu12", ">=11.2.3.61,<12.0"), ("nvidia-curand-cu12", ">=10.3.6.82,<11.0"),
    ("nvidia-cusolver-cu12", ">=11.6.3.83,<12.0"), ("nvidia-cusparse-cu12", ">=12.5.1.3,<13.0"),
    ("nvidia-nccl-cu12", ">=2.25.1,<3.0"), ("nvidia-nvjitlink-cu12", ">=12.5.82,<13.0"),
]
# jax-cudaNN-plugin[with-cuda]: modelled on jax-ml/jax build/nvidia-requirements
# and jax_plugins/cuda/plugin_setup.py (floors; cuDNN 9.8 for CUDA 12).
JAX_WITH_CUDA = {
    "12": [("nvidia-cublas-cu12", ">=12.1.3.1"), ("nvidia-cuda-cupti-cu12", ">=12.1.105"),
           ("nvidia-cuda-nvcc-cu12", ">=12.6.85"), ("nvidia-cuda-runtime-cu12", ">=12.1.105"),
           ("nvidia-cudnn-cu12", ">=9.8,<10.0"), ("nvidia-cufft-cu12", ">=11.0.2.54"),
           ("nvidia-cusolver-cu12", ">=11.4.5.107"), ("nvidia-cusparse-cu12", ">=12.1.0.106"),
           ("nvidia-nccl-cu12", ">=2.18.1"), ("nvidia-nvjitlink-cu12", ">=12.1.105")],
    "13": [("nvidia-cublas", ">=13.0.0.19"), ("nvidia-cuda-runtime", ">=13.0.48"),
           ("nvidia-cudnn-cu13", ">=9.12.0.46,<10.0"), ("nvidia-cufft", ">=12.0.0.15"),
           ("nvidia-cusolver", ">=12.0.3.29"), ("nvidia-cusparse", ">=12.6.2.49"),
           ("nvidia-nccl-cu13", ">=2.27.7"), ("nvidia-nvjitlink", ">=13.0.39")],
}
# The Linux driver each JAX plugin needs (docs.jax.dev, Installation: ">= 525
# for CUDA 12 on Linux, and >= 580 for CUDA 13").
JAX_MIN_DRIVER = {"12": 525, "13": 580}

KNOWN = ("tensorflow", "jax", "jaxlib", "jax-cuda12-plugin", "jax-cuda12-pjrt", "jax-cuda13-plugin",
         "jax-cuda13-pjrt", "onnxruntime-gpu", "onnx", "numpy") + tuple(NVIDIA_LIBS)

# The fake modules' texts, one file each in fake_frameworks/ beside this
# file, laid out as the wheels' trees (fake_frameworks/README.md). A NAME.in
# is a template: lines_for fills its @PLACEHOLDERS@ (fill); the others go
# into the wheels as they are. Read byte for byte (UTF-8, no newline
# translation), so a wheel holds exactly the file's text.
FAKE_FRAMEWORKS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fake_frameworks")


def module_text(path):
    """The text of fake_frameworks/PATH."""
    with open(os.path.join(FAKE_FRAMEWORKS, path), encoding="utf-8", newline="") as f:
        return f.read()


# What every framework reads from the root at run time (each wheel gets its
# own copy, as _machine.py in its package).
MACHINE = module_text("_machine.py")
# numpy: arrays of one repeated value (what the smoke checks compute with).
NUMPY_INIT = module_text("numpy/__init__.py.in")
# onnx: helper builds a model as a dict, which SerializeToString writes as JSON.
ONNX_INIT = module_text("onnx/__init__.py.in")
ONNX_HELPER = module_text("onnx/helper.py")
# onnxruntime (the onnxruntime-gpu wheel): the CUDA provider loads
# libonnxruntime_providers_cuda.so, which needs libcudnn.so.9 (and CUDA 12's
# libraries) from the venv's nvidia packages, and libcuda.so.1.
ORT_INIT = module_text("onnxruntime/__init__.py.in")
# tensorflow: GPU devices only when libcuda.so.1 and the and-cuda wheels'
# libraries are there; otherwise TF's own lines and the CPU, silently for
# placement (soft placement).
TF_INIT = module_text("tensorflow/__init__.py.in")
# jax: the CUDA device comes from an installed plugin (jax_cudaNN_plugin with
# its pjrt, jax_plugins/xla_cudaNN) whose CUDA libraries are there, on a
# driver at its floor; otherwise JAX's own warnings and the CPU.
JAX_INIT = module_text("jax/__init__.py.in")
JAX_NUMPY = module_text("jax/numpy.py")
# jaxlib: only its version.
JAXLIB_INIT = module_text("jaxlib/__init__.py.in")
# jax_cudaNN_plugin: what decides whether it initializes (one template for
# both plugins: @MAJOR@, @MIN_DRIVER@ and @LIBS@ say which).
JAX_PLUGIN = module_text("jax_cuda_plugin/__init__.py.in")


def platform_tag(name):
    """The tag a real wheel of NAME has (python, abi, platform), with CPTAG for cpXY."""
    if name == "jax":
        return ("py3", "none", "any")
    if name.startswith("nvidia-") or name.endswith("-pjrt"):
        return ("py3", "none", "manylinux_2_27_x86_64")
    if name == "tensorflow":
        return (None, None, "manylinux_2_17_x86_64.manylinux2014_x86_64")
    return (None, None, "manylinux_2_27_x86_64.manylinux_2_28_x86_64")


def pin(versions, name, version=None):
    v = version or versions.get(name)
    return "%s<=%s,>=%s" % (name, v, v) if v else name


def lines_for(name, version, versions):
    """(files, Requires-Dist lines, Provides-Extra names) of NAME."""
    def fill(t, **kw):
        t = t.replace("@VERSION@", repr(version))
        for k, v in kw.items():
            t = t.replace("@%s@" % k, v)
        return t

    if name in NVIDIA_LIBS:
        # nvidia/__init__.py and nvidia/<component>/__init__.py, as NVIDIA's
        # wheels have (a hollow wheel keeps those).
        component = "/".join(NVIDIA_LIBS[name].split("/")[:2])
        files = {"nvidia/__init__.py": "", component + "/__init__.py": "",
                 NVIDIA_LIBS[name]: "fake %s %s\n" % (name, version)}
        return files, [], []
    if name == "numpy":
        return {"numpy/__init__.py": fill(NUMPY_INIT)}, [], []
    if name == "onnx":
        return {"onnx/__init__.py": fill(ONNX_INIT), "onnx/helper.py": ONNX_HELPER}, ["numpy>=1.22"], []
    if name == "onnxruntime-gpu":
        files = {"onnxruntime/__init__.py": fill(ORT_INIT), "onnxruntime/_machine.py": MACHINE,
                 "onnxruntime/capi/libonnxruntime_providers_cuda.so": "fake provider library (%s)\n" % version}
        return files, ["numpy>=1.21.6"], []
    if name == "tensorflow":
        libs = [NVIDIA_LIBS[n] for n, _ in TF_AND_CUDA]
        files = {"tensorflow/__init__.py": fill(TF_INIT, GPU_LIBS=repr(libs)), "tensorflow/_machine.py": MACHINE}
        reqs = ["numpy>=1.26.0"] + ['%s%s; extra == "and-cuda"' % (n, s) for n, s in TF_AND_CUDA]
        return files, reqs, ["and-cuda"]
    if name == "jax":
        files = {"jax/__init__.py": fill(JAX_INIT), "jax/numpy.py": JAX_NUMPY, "jax/_machine.py": MACHINE}
        reqs = [pin(versions, "jaxlib", version), "numpy>=1.26"]
        extras = []
        for major in ("12", "13"):
            extras += ["cuda" + major, "cuda%s-local" % major]
            reqs += ['%s; extra == "cuda%s"' % (pin(versions, "jaxlib", version), major),
                     '%s; extra == "cuda%s"' % (pin(versions, "jax-cuda%s-plugin[with-cuda]" % major, version), major),
                     '%s; extra == "cuda%s-local"' % (pin(versions, "jax-cuda%s-plugin" % major, version), major)]
        return files, reqs, extras
    if name == "jaxlib":
        return {"jaxlib/__init__.py": fill(JAXLIB_INIT)}, ["numpy>=1.26"], []
    m = re.fullmatch(r"jax-cuda(\d+)-(plugin|pjrt)", name)
    if m and m.group(2) == "pjrt":
        d = "jax_plugins/xla_cuda%s/" % m.group(1)
        return {d + "__init__.py": "", d + "xla_cuda_plugin.so": "fake PJRT plugin (%s)\n" % version}, [], []
    if m:
        major = m.group(1)
        libs = [NVIDIA_LIBS[n] for n, _ in JAX_WITH_CUDA[major]]
        files = {"jax_cuda%s_plugin/__init__.py" % major: fill(
            JAX_PLUGIN, MAJOR=major, MIN_DRIVER=str(JAX_MIN_DRIVER[major]), LIBS=repr(libs))}
        reqs = ["jax-cuda%s-pjrt==%s" % (major, version)]
        reqs += ['%s%s; extra == "with-cuda"' % (n, s) for n, s in JAX_WITH_CUDA[major]]
        return files, reqs, ["with-cuda"]
    raise SystemExit("fake_framework_wheels.py: no wheel named " + name)


def build_wheel(name, version, cp, versions, hollow):
    py, abi, plat = platform_tag(name)
    tag = "%s-%s-%s" % (py or cp, abi or cp, plat)
    dist = fw.dist_escape(name)
    info = "%s-%s.dist-info" % (dist, version)
    files, reqs, extras = lines_for(name, version, versions)
    if hollow:
        files = {p: c for p, c in files.items() if p.endswith(".py")}
    files = {p: c.encode() for p, c in files.items()}
    metadata = "Metadata-Version: 2.1\nName: %s\nVersion: %s\nSummary: fake %s for tests (not the real one)\n" % (
        name, version, name)
    metadata += "".join("Requires-Dist: %s\n" % r for r in reqs)
    metadata += "".join("Provides-Extra: %s\n" % e for e in extras)
    files[info + "/METADATA"] = metadata.encode()
    files[info + "/WHEEL"] = ("Wheel-Version: 1.0\nGenerator: wslgpu-setup tests/support/fake_framework_wheels.py\n"
                              "Root-Is-Purelib: false\nTag: %s\n" % tag).encode()
    tops = sorted({p.split("/")[0] for p in files if "/" in p and ".dist-info" not in p})
    files[info + "/top_level.txt"] = "".join(t + "\n" for t in tops).encode()
    record = io.StringIO()
    for path in sorted(files):
        record.write("%s,sha256=%s,%d\n" % (path, fw.urlsafe_sha256(files[path]), len(files[path])))
    record.write("%s/RECORD,,\n" % info)
    files[info + "/RECORD"] = record.getvalue().encode()
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for path in sorted(files, key=lambda p: (".dist-info/" in p, p)):
            zi = zipfile.ZipInfo(path, fw.EPOCH)
            zi.external_attr = (0o755 if path.endswith("/ptxas") else 0o644) << 16
            zi.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(zi, files[path])
    return "%s-%s-%s.whl" % (dist, version, tag), out.getvalue()


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--folder", default="wheels", help="the find-links folder under OUT (default: wheels)")
    p.add_argument("--index", default="simple", help="the PEP 503 index under OUT (default: simple)")
    p.add_argument("--hollow", action="append", default=[], metavar="NAME",
                   help="NAME's wheel without its library (only its Python files)")
    p.add_argument("out")
    p.add_argument("spec", nargs="+", help="NAME VERSION CPTAG, repeated")
    args = p.parse_args(argv)
    specs = fw.parse_specs(p, args.spec, KNOWN)
    for h in args.hollow:
        if h not in {n for n, _, _ in specs}:
            p.error("--hollow %s: not a wheel of this run" % h)
    versions = {n: v for n, v, _ in specs}
    folder = os.path.join(args.out, args.folder)
    os.makedirs(folder, exist_ok=True)
    for name, version, cp in specs:
        filename, data = build_wheel(name, version, cp, versions, name in args.hollow)
        with open(os.path.join(folder, filename), "wb") as f:
            f.write(data)
        print(name, version, filename, hashlib.sha256(data).hexdigest())
    # PyPI's pages announce each wheel's METADATA file (PEP 658/714), which
    # a plan reads to name what tensorflow[and-cuda] pulls in.
    fw.write_index(args.out, args.folder, args.index, metadata=True)


if __name__ == "__main__":
    main(sys.argv[1:])
