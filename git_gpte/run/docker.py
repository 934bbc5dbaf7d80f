"""Run the command inside a Docker container, with the temporary worktree mounted.

The container sees the checkout at ``/workspace`` and nothing else of the machine: no host
environment variables (only ``HOME``, and ``CI`` when set), no git directory (the worktree's
``.git`` file points at a host path that is not mounted), the invoking user's uid/gid so files it
writes stay removable, no added capabilities, ``no-new-privileges``. Deadline, output cap and
group kill are the same as locally; on timeout or Ctrl-C the container itself is killed
(killing the ``docker`` client alone would leave it running).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import uuid
from collections.abc import Mapping
from pathlib import Path

from ..errors import ConfigError, RunError
from .capture import DEFAULT_MAX_OUTPUT_BYTES
from .command import RunCommand
from .environment import ExecutionEnvironment, to_result
from .process import DEFAULT_KILL_GRACE, OutputCallback, run_process
from .result import RunResult

DEFAULT_IMAGE = "python:3.12-slim"
CONTAINER_WORKDIR = "/workspace"
_PASSED_THROUGH = ("CI",)


class DockerEnvironment(ExecutionEnvironment):
    """``docker run --rm`` of ``image`` with the checkout bind-mounted read-write."""

    name = "docker"

    def __init__(
        self,
        image: str = DEFAULT_IMAGE,
        *,
        network: str | None = None,
        docker: str = "docker",
        kill_grace: float = DEFAULT_KILL_GRACE,
    ) -> None:
        self.image = image
        self.network = network
        self.docker = docker
        self.kill_grace = kill_grace

    def describe(self) -> str:
        net = f", network {self.network}" if self.network else ""
        return f"in a Docker container of {self.image} (checkout at {CONTAINER_WORKDIR}{net})"

    def check(self) -> None:
        """A clear error unless a Docker engine answers ``docker info``."""
        if shutil.which(self.docker) is None:
            raise ConfigError(
                f"--docker: the {self.docker!r} command is not installed",
                hint="install Docker, or run without --docker",
            )
        try:
            proc = subprocess.run(
                [self.docker, "info", "--format", "{{.ServerVersion}}"],
                capture_output=True,
                stdin=subprocess.DEVNULL,
                timeout=30,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise ConfigError(
                f"--docker: no Docker engine answers ({exc})",
                hint="start Docker, or run without --docker",
            ) from None
        if proc.returncode != 0 or not proc.stdout.strip():
            detail = _first_line(proc.stderr) or f"docker info exited with {proc.returncode}"
            raise ConfigError(
                f"--docker: no Docker engine answers: {detail}",
                hint="start Docker, or run without --docker",
            )

    def docker_argv(self, command: RunCommand, workdir: Path, container: str) -> list[str]:
        """The ``docker run`` command line (an argument vector; nothing goes through a shell)."""
        if ":" in str(workdir) or "," in str(workdir):
            raise RunError(f"cannot mount {workdir} into a container: the path holds ':' or ','")
        argv = [
            self.docker,
            "run",
            "--rm",
            "--init",
            "--name",
            container,
            "--volume",
            f"{workdir}:{CONTAINER_WORKDIR}",
            "--workdir",
            CONTAINER_WORKDIR,
            "--user",
            f"{os.getuid()}:{os.getgid()}",
            "--env",
            "HOME=/tmp",
            "--cap-drop",
            "ALL",
            "--security-opt",
            "no-new-privileges",
        ]
        for name in _PASSED_THROUGH:
            if os.environ.get(name):
                argv += ["--env", name]
        if self.network:
            argv += ["--network", self.network]
        argv += [self.image, *command.argv]
        return argv

    def execute(
        self,
        command: RunCommand,
        workdir: Path,
        *,
        env: Mapping[str, str],
        timeout: float,
        max_output_bytes: int = DEFAULT_MAX_OUTPUT_BYTES,
        on_output: OutputCallback | None = None,
    ) -> RunResult:
        container = f"gpte-run-{uuid.uuid4().hex[:12]}"
        argv = self.docker_argv(command, workdir, container)

        def kill_container() -> None:
            subprocess.run(
                [self.docker, "kill", container],
                capture_output=True,
                stdin=subprocess.DEVNULL,
                timeout=30,
                check=False,
            )

        # The client gets the scrubbed environment (it needs DOCKER_HOST and friends); the
        # container gets none of it.
        outcome = run_process(
            argv,
            cwd=workdir,
            env=env,
            timeout=timeout,
            max_output_bytes=max_output_bytes,
            kill_grace=self.kill_grace,
            on_output=on_output,
            on_kill=kill_container,
        )
        return to_result(outcome, command, timeout, f"docker:{self.image}")


def _first_line(data: bytes) -> str:
    for line in data.decode("utf-8", "replace").splitlines():
        if line.strip():
            return line.strip()
    return ""
