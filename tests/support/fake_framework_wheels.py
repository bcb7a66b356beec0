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
says what each wheel holds and requires. Prints one line per wheel written:
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
see MACHINE below and each framework's module.
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

# What every framework reads from the root at run time (each wheel gets its
# own copy, as _machine.py in its package).
MACHINE = r'''"""The machine, as the fake frameworks see it (tests/support/fake_framework_wheels.py)."""
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
'''

# numpy: arrays of one repeated value (what the smoke checks compute with).
NUMPY_INIT = r'''"""A fake numpy for tests (tests/support/fake_framework_wheels.py): arrays
of one repeated value, enough for ones(), dtype=, indexing, @ and float()."""
__version__ = @VERSION@


class dtype:
    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return "dtype(%r)" % self.name

    def __eq__(self, other):
        return isinstance(other, dtype) and other.name == self.name

    def __hash__(self):
        return hash(self.name)


float32 = dtype("float32")
float64 = dtype("float64")


class ndarray:
    def __init__(self, shape, value, dt=float64):
        self.shape = tuple(shape)
        self._value = float(value)
        self.dtype = dt

    @property
    def ndim(self):
        return len(self.shape)

    def __getitem__(self, index):
        index = index if isinstance(index, tuple) else (index,)
        if len(index) > len(self.shape):
            raise IndexError("too many indices for array")
        for i, n in zip(index, self.shape):
            if not -n <= i < n:
                raise IndexError("index %d is out of bounds for axis with size %d" % (i, n))
        rest = self.shape[len(index):]
        return ndarray(rest, self._value, self.dtype) if rest else self._value

    def __matmul__(self, other):
        if self.shape[-1] != other.shape[0]:
            raise ValueError("matmul: Input operand 1 has a mismatch in its core dimension 0")
        return ndarray(self.shape[:-1] + other.shape[1:], self._value * other._value * self.shape[-1], self.dtype)

    def sum(self):
        n = 1
        for d in self.shape:
            n *= d
        return self._value * n

    def __float__(self):
        if self.shape not in ((), (1,)):
            raise TypeError("only length-1 arrays can be converted to Python scalars")
        return self._value

    def __repr__(self):
        return "array(shape=%r, value=%r, dtype=%s)" % (self.shape, self._value, self.dtype.name)


def _shape(shape):
    return tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)


def ones(shape, dtype=float64):
    return ndarray(_shape(shape), 1.0, dtype)


def zeros(shape, dtype=float64):
    return ndarray(_shape(shape), 0.0, dtype)


def dot(a, b):
    return a @ b
'''

ONNX_INIT = r'''"""A fake onnx for tests (tests/support/fake_framework_wheels.py): helper
builds a model as a dict, which SerializeToString writes as JSON."""
__version__ = @VERSION@


class TensorProto:
    FLOAT = 1
    DOUBLE = 11


from . import helper  # noqa: E402
'''

ONNX_HELPER = r'''"""onnx.helper of the fake onnx."""
import json


class _Proto(dict):
    def SerializeToString(self):
        return b"fake-onnx:" + json.dumps(self, sort_keys=True).encode()


def make_tensor_value_info(name, elem_type, shape):
    return _Proto(name=name, elem_type=elem_type, shape=list(shape))


def make_node(op_type, inputs, outputs, **attrs):
    return _Proto(op_type=op_type, inputs=list(inputs), outputs=list(outputs))


def make_graph(nodes, name, inputs, outputs):
    return _Proto(nodes=list(nodes), name=name, inputs=list(inputs), outputs=list(outputs))


def make_opsetid(domain, version):
    return _Proto(domain=domain, version=version)


def make_model(graph, opset_imports=(), ir_version=8, **kw):
    return _Proto(graph=graph, opset_imports=list(opset_imports), ir_version=ir_version)
'''

# onnxruntime (the onnxruntime-gpu wheel): the CUDA provider loads
# libonnxruntime_providers_cuda.so, which needs libcudnn.so.9 (and CUDA 12's
# libraries) from the venv's nvidia packages, and libcuda.so.1.
ORT_INIT = r'''"""A fake onnxruntime (onnxruntime-gpu) for tests
(tests/support/fake_framework_wheels.py)."""
import json
import sys

import numpy as _np

from . import _machine

__version__ = @VERSION@
# What the provider library needs from the venv: cuDNN 9 first (its error
# names the first library that does not load).
_CUDA_NEEDS = ["nvidia/cudnn/lib/libcudnn.so.9"]


def get_available_providers():
    # Compiled in, whether or not it can load (microsoft/onnxruntime issue 23059).
    return ["TensorrtExecutionProvider", "CUDAExecutionProvider", "CPUExecutionProvider"]


def get_device():
    return "GPU"


def preload_dlls(cuda=True, cudnn=True, msvc=True, directory=None):
    return None


def _cuda_why_not():
    gone = _machine.missing(_CUDA_NEEDS)
    if gone:
        return gone[0].rsplit("/", 1)[-1] + ": cannot open shared object file: No such file or directory"
    return _machine.cuda_why_not()


class InferenceSession:
    def __init__(self, model, sess_options=None, providers=None, provider_options=None, **kw):
        if isinstance(model, (bytes, bytearray)):
            if not bytes(model).startswith(b"fake-onnx:"):
                raise RuntimeError("[ONNXRuntimeError] : 7 : INVALID_PROTOBUF : Load model from bytes failed:Protobuf parsing failed.")
            self._model = json.loads(bytes(model)[len(b"fake-onnx:"):])
        else:
            raise RuntimeError("the fake onnxruntime loads models from bytes only")
        wanted = list(providers or ["CPUExecutionProvider"])
        self._providers = []
        for p in wanted:
            if p == "CUDAExecutionProvider":
                why = _cuda_why_not()
                if why:
                    # ONNX Runtime's own lines (provider_bridge_ort.cc and
                    # onnxruntime_pybind_state.cc), then the CPU.
                    sys.stderr.write(
                        "2026-01-01 00:00:00.000000000 [E:onnxruntime:Default, provider_bridge_ort.cc:2036 "
                        "TryGetProviderInfo_CUDA] /onnxruntime_src/onnxruntime/core/session/provider_bridge_ort.cc:2036 "
                        "onnxruntime::Provider& onnxruntime::ProviderLibrary::Get() [ONNXRuntimeError] : 1 : FAIL : "
                        "Failed to load library libonnxruntime_providers_cuda.so with error: %s\n" % why)
                    sys.stderr.write(
                        "2026-01-01 00:00:00.000000000 [W:onnxruntime:Default, onnxruntime_pybind_state.cc:1055 "
                        "CreateExecutionProviderInstance] Failed to create CUDAExecutionProvider. Require cuDNN 9.* "
                        "and CUDA 12.*. Please install all dependencies as mentioned in the GPU requirements page "
                        "(https://onnxruntime.ai/docs/execution-providers/CUDA-ExecutionProvider.html#requirements), "
                        "make sure they're in the PATH, and that your GPU is supported.\n")
                    continue
                self._providers.append(p)
            elif p == "CPUExecutionProvider":
                self._providers.append(p)
            elif p not in get_available_providers():
                raise ValueError("Specified provider '%s' is not in available provider names." % p)
        if "CPUExecutionProvider" not in self._providers:
            self._providers.append("CPUExecutionProvider")

    def get_providers(self):
        return list(self._providers)

    def run(self, output_names, feeds):
        graph = self._model["graph"]
        values = dict(feeds)
        for node in graph["nodes"]:
            if node["op_type"] != "MatMul":
                raise RuntimeError("the fake onnxruntime runs MatMul only, not " + node["op_type"])
            a, b = (values[i] for i in node["inputs"])
            values[node["outputs"][0]] = a @ b
        return [values[o["name"]] for o in graph["outputs"]]
'''

# tensorflow: GPU devices only when libcuda.so.1 and the and-cuda wheels'
# libraries are there; otherwise TF's own lines and the CPU, silently for
# placement (soft placement).
TF_INIT = r'''"""A fake tensorflow for tests (tests/support/fake_framework_wheels.py)."""
import sys as _sys

from . import _machine

__version__ = @VERSION@
# The libraries of the and-cuda wheels, under site-packages (the real
# wheel's RUNPATH points at ../nvidia/*/lib).
_GPU_LIBS = @GPU_LIBS@
_warned = []


def _gpu_why_not():
    why = _machine.cuda_why_not()
    if why:
        return why
    gone = _machine.missing(_GPU_LIBS)
    if gone:
        return "Could not load dynamic library '%s'" % gone[0].rsplit("/", 1)[-1]
    return None


def _gpus():
    why = _gpu_why_not()
    if why is None:
        return 1
    if not _warned:
        _warned.append(why)
        if not _machine.has_libcuda():
            _sys.stderr.write("E0000 00:00:1700000000.000000    1 cuda_executor.cc:1228] failed call to cuInit: "
                              "INTERNAL: CUDA error: Failed call to cuInit: UNKNOWN ERROR (303)\n")
        _sys.stderr.write("W0000 00:00:1700000000.000000    1 gpu_device.cc:2344] Cannot dlopen some GPU libraries. "
                          "Please make sure the missing libraries mentioned above are installed properly if you would "
                          "like to use GPU. Follow the guide at https://www.tensorflow.org/install/gpu for how to "
                          "download and setup the required libraries for your platform.\n"
                          "Skipping registering GPU devices...\n")
    return 0


class PhysicalDevice:
    def __init__(self, name, device_type):
        self.name = name
        self.device_type = device_type

    def __repr__(self):
        return "PhysicalDevice(name=%r, device_type=%r)" % (self.name, self.device_type)


class _Config:
    def list_physical_devices(self, device_type=None):
        out = []
        if device_type in (None, "CPU"):
            out.append(PhysicalDevice("/physical_device:CPU:0", "CPU"))
        if device_type in (None, "GPU") and _gpus():
            out.append(PhysicalDevice("/physical_device:GPU:0", "GPU"))
        return out


config = _Config()
_placement = ["CPU:0"]


class device:
    """tf.device: a GPU that does not exist is the CPU (soft placement)."""

    def __init__(self, name):
        self._name = name.lstrip("/").upper().replace("DEVICE:", "")

    def __enter__(self):
        wanted = self._name if ":" in self._name else self._name + ":0"
        _placement.append(wanted if not wanted.startswith("GPU") or _gpus() else "CPU:0")
        return self

    def __exit__(self, *exc):
        _placement.pop()
        return False


class Tensor:
    def __init__(self, shape, value):
        self.shape = tuple(shape)
        self._value = float(value)
        self.device = "/job:localhost/replica:0/task:0/device:" + _placement[-1]

    def __float__(self):
        if self.shape not in ((), (1,)):
            raise TypeError("Cannot convert a tensor of shape %r to a Python float" % (self.shape,))
        return self._value

    def numpy(self):
        return self._value


class _Random:
    def normal(self, shape, mean=0.0, stddev=1.0, dtype=None, seed=None):
        # One repeated value: enough for a device and a sum.
        return Tensor(shape, 1.0)


random = _Random()


def matmul(a, b):
    if a.shape[-1] != b.shape[0]:
        raise ValueError("Matrix size-incompatible: In[0]: %r, In[1]: %r" % (a.shape, b.shape))
    return Tensor(a.shape[:-1] + b.shape[1:], a._value * b._value * a.shape[-1])


def reduce_sum(t):
    n = 1
    for d in t.shape:
        n *= d
    return Tensor((), t._value * n)
'''

# jax: the CUDA device comes from an installed plugin (jax_cudaNN_plugin with
# its pjrt, jax_plugins/xla_cudaNN) whose CUDA libraries are there, on a
# driver at its floor; otherwise JAX's own warnings and the CPU.
JAX_INIT = r'''"""A fake jax for tests (tests/support/fake_framework_wheels.py)."""
import glob as _glob
import importlib as _importlib
import os as _os
import sys as _sys

from . import _machine
from . import numpy  # noqa: F401  (jax.numpy)

__version__ = @VERSION@
_backend = []


class CudaDevice:
    platform = "gpu"
    device_kind = "NVIDIA GeForce RTX 4090"

    def __init__(self, id):
        self.id = id

    def __repr__(self):
        return "CudaDevice(id=%d)" % self.id


class CpuDevice:
    platform = "cpu"
    device_kind = "cpu"

    def __init__(self, id):
        self.id = id

    def __repr__(self):
        return "CpuDevice(id=%d)" % self.id


def _plugins():
    """The CUDA plugins installed: (major, module) for each jax_cudaNN_plugin
    whose pjrt (jax_plugins/xla_cudaNN) is there too."""
    out = []
    for path in sorted(_glob.glob(_os.path.join(_machine.SITE, "jax_cuda*_plugin"))):
        major = _os.path.basename(path)[len("jax_cuda"):-len("_plugin")]
        if _os.path.isdir(_os.path.join(_machine.SITE, "jax_plugins", "xla_cuda" + major)):
            out.append((major, _importlib.import_module("jax_cuda%s_plugin" % major)))
    return out


def _init():
    if _backend:
        return _backend[0]
    failed = False
    for major, plugin in _plugins():
        why = plugin._why_not()
        if why is None:
            _backend.append(CudaDevice)
            return CudaDevice
        failed = True
        _sys.stderr.write("WARNING:2026-01-01 00:00:00,000:jax._src.xla_bridge:870: CUDA backend failed to "
                          "initialize: %s (Set TF_CPP_MIN_LOG_LEVEL=0 and rerun for more info.)\n" % why)
    if failed or _os.path.exists(_machine.NVIDIA_SMI):
        _sys.stderr.write("WARNING:2026-01-01 00:00:00,000:jax._src.xla_bridge:909: An NVIDIA GPU may be present on "
                          "this machine, but a CUDA-enabled jaxlib is not installed. Falling back to cpu.\n")
    _backend.append(CpuDevice)
    return CpuDevice


def devices(backend=None):
    return [_init()(0)]


def default_backend():
    return "gpu" if _init() is CudaDevice else "cpu"


def jit(fun, **kw):
    return fun
'''

JAX_NUMPY = r'''"""jax.numpy of the fake jax: arrays of one repeated value."""


class Array:
    def __init__(self, shape, value):
        self.shape = tuple(shape)
        self._value = float(value)

    def block_until_ready(self):
        return self

    def __getitem__(self, index):
        index = index if isinstance(index, tuple) else (index,)
        rest = self.shape[len(index):]
        return Array(rest, self._value)

    def __float__(self):
        if self.shape not in ((), (1,)):
            raise TypeError("only length-1 arrays can be converted to Python scalars")
        return self._value

    def devices(self):
        import jax
        return set(jax.devices())


def ones(shape, dtype=None):
    return Array(tuple(shape) if isinstance(shape, (tuple, list)) else (shape,), 1.0)


def dot(a, b):
    if a.shape[-1] != b.shape[0]:
        raise TypeError("dot_general requires contracting dimensions to have the same shape")
    return Array(a.shape[:-1] + b.shape[1:], a._value * b._value * a.shape[-1])
'''

# jax_cudaNN_plugin: what decides whether it initializes.
JAX_PLUGIN = r'''"""A fake jax_cuda@MAJOR@_plugin for tests (tests/support/fake_framework_wheels.py)."""
import jax._machine as _machine

__version__ = @VERSION@
MIN_DRIVER = @MIN_DRIVER@
# The with-cuda wheels' libraries, which the plugin loads from site-packages.
_LIBS = @LIBS@


def _why_not():
    why = _machine.cuda_why_not()
    if why:
        return why
    d = _machine.driver()
    if d is not None and d[0] < MIN_DRIVER:
        return ("Found CUDA driver version %s, which is older than the CUDA @MAJOR@ plugin needs: "
                "update the NVIDIA driver to %d or later." % (".".join(str(x) for x in d), MIN_DRIVER))
    gone = _machine.missing(_LIBS)
    if gone:
        return "Unable to load %s. Is it installed?" % gone[0].rsplit("/", 1)[-1]
    return None
'''


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
        return {"jaxlib/__init__.py": fill('"""A fake jaxlib."""\n__version__ = @VERSION@\n')}, ["numpy>=1.26"], []
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
