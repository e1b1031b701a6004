"""How llama.cpp loads a model on this machine, and what the machine offers it.

llama.cpp's CPU backend may give a quantized model's weights to an "extra buffer type"
(weights repacked for AVX2/AVX-512, or Intel AMX tiles). On Xeons with AMX the AMX
buffer of llama-cpp-python 0.3.36 crashes the process at the first decode (llama.cpp
issue 20824). ``Llama()`` has no argument for it and llama.cpp no environment variable,
so every model tinycode loads takes its parameters from :func:`extra_buffer_types`:
off unless the user turns them on.
"""

from __future__ import annotations

import contextlib
import threading
from typing import Any, Iterator

# The field of ``llama_model_params`` (llama.h: "use extra buffer types (used for weight
# repacking)"); builds without it have no extra buffer types to turn off.
EXTRA_BUFFERS_FIELD = "use_extra_bufts"
# /proc/cpuinfo flags llama.cpp's CPU kernels choose between.
CPU_FLAGS = ("avx", "avx2", "fma", "f16c", "avx512f", "avx512bw", "avx512_vnni", "avx512_bf16",
             "amx_tile", "amx_int8", "amx_bf16")

_lock = threading.Lock()


@contextlib.contextmanager
def extra_buffer_types(enabled: bool) -> Iterator[None]:
    """Within the block, every ``llama_cpp.Llama`` made in this process loads its weights
    with llama.cpp's extra buffer types ``enabled`` or not. ``Llama.__init__`` starts from
    ``llama_model_default_params()``, looked up on the module at call time: that function
    is wrapped for the block (under a lock, so two loads never see each other's choice)."""
    import llama_cpp.llama_cpp as api

    with _lock:
        original = api.llama_model_default_params
        api.llama_model_default_params = _with_extra_buffers(original, enabled)
        try:
            yield
        finally:
            api.llama_model_default_params = original


def install(enabled: bool) -> None:
    """For the rest of this process, as :func:`extra_buffer_types` (a process that only
    serves a model: the model server launcher)."""
    import llama_cpp.llama_cpp as api

    api.llama_model_default_params = _with_extra_buffers(api.llama_model_default_params, enabled)


def _with_extra_buffers(default_params: Any, enabled: bool) -> Any:
    def params() -> Any:
        values = default_params()
        if hasattr(values, EXTRA_BUFFERS_FIELD):
            setattr(values, EXTRA_BUFFERS_FIELD, enabled)
        return values

    return params


def extra_buffers_of(llama: Any) -> bool | None:
    """Whether a loaded ``llama_cpp.Llama`` used extra buffer types (None: the build has none)."""
    params = getattr(llama, "model_params", None)
    if params is None or not hasattr(params, EXTRA_BUFFERS_FIELD):
        return None
    return bool(getattr(params, EXTRA_BUFFERS_FIELD))


def cpu_flags(path: str = "/proc/cpuinfo") -> dict[str, bool] | None:
    """Which of :data:`CPU_FLAGS` the first CPU lists (None where there is no cpuinfo)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            for line in handle:
                name, _, value = line.partition(":")
                if name.strip() == "flags":
                    present = set(value.split())
                    return {flag: flag in present for flag in CPU_FLAGS}
    except OSError:
        return None
    return None


def cpu_model(path: str = "/proc/cpuinfo") -> str:
    """The CPU's model name, or ""."""
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            for line in handle:
                name, _, value = line.partition(":")
                if name.strip() == "model name":
                    return value.strip()
    except OSError:
        pass
    return ""


def build_info() -> dict[str, Any]:
    """What the installed llama-cpp-python was built with: its version, llama.cpp's own
    system line (the CPU features it uses, ``AMX_INT8 = 1``, ``REPACK = 1``...), GPU
    offload, and whether its model parameters have the extra buffer types switch."""
    import llama_cpp

    api = llama_cpp.llama_cpp
    llama_cpp.llama_backend_init()
    info: dict[str, Any] = {"version": getattr(llama_cpp, "__version__", "?")}
    info["system"] = api.llama_print_system_info().decode("utf-8", "replace").strip()
    info["gpu_offload"] = bool(api.llama_supports_gpu_offload())
    info["extra_buffers_switch"] = hasattr(api.llama_model_default_params(), EXTRA_BUFFERS_FIELD)
    return info
