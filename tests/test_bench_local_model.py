"""bench/local_model.py's build recipe: the CPU's vector extensions by name, never AMX."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]


def _module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("local_model", ROOT / "bench" / "local_model.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look themselves up there
    spec.loader.exec_module(module)
    return module


def test_a_cpu_with_avx512_and_amx_gets_avx512_and_no_amx() -> None:
    flags = {"avx2", "fma", "avx512f", "avx512vbmi", "avx512_vnni", "avx512_bf16", "amx_int8"}
    options = _module().build_options(flags).split()
    assert "-DGGML_NATIVE=OFF" in options
    assert {"-DGGML_AVX2=ON", "-DGGML_AVX512=ON", "-DGGML_AVX512_VBMI=ON"} <= set(options)
    assert {"-DGGML_AVX512_VNNI=ON", "-DGGML_AVX512_BF16=ON"} <= set(options)
    assert {"-DGGML_AMX_TILE=OFF", "-DGGML_AMX_INT8=OFF", "-DGGML_AMX_BF16=OFF"} <= set(options)


def test_a_cpu_without_avx512f_gets_avx2_only() -> None:
    options = _module().build_options({"avx2", "fma", "avx512_vnni"}).split()
    assert "-DGGML_AVX2=ON" in options
    assert not [o for o in options if o.startswith("-DGGML_AVX512")]
