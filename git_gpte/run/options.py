"""Resolving what ``run`` (and ``heal``) will execute, from flags and configuration.

Which command, in order: ``--command CMD``; ``--entrypoint PATH``; ``[run] test``, then
``[run] build`` from gpt-engineer.toml (as gpt-engineer projects have them); ``git config
gpte.entrypoint``; ``run.sh``. Timeout: ``--timeout`` > ``GPTE_TIMEOUT`` > ``gpte.timeout`` >
``[run] timeout`` > 600 s. Extra variables to scrub: ``GPTE_SCRUB_ENV`` > ``gpte.scrubEnv`` >
``[run] scrub_env``.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..config import Settings
from ..errors import ConfigError, UsageError
from .capture import DEFAULT_MAX_OUTPUT_BYTES
from .command import DEFAULT_ENTRYPOINT, RunCommand
from .docker import DEFAULT_IMAGE, DockerEnvironment
from .environment import ExecutionEnvironment, LocalEnvironment
from .scrub import parse_name_list

DEFAULT_TIMEOUT = 600.0


@dataclass(frozen=True)
class RunOptions:
    """Everything decided before a run; build one with :meth:`resolve`, reuse it per attempt."""

    command: RunCommand
    timeout: float = DEFAULT_TIMEOUT
    scrub: tuple[str, ...] = ()
    max_output_bytes: int = DEFAULT_MAX_OUTPUT_BYTES
    docker: bool = False
    docker_image: str = DEFAULT_IMAGE
    docker_network: str | None = None

    @classmethod
    def resolve(
        cls,
        settings: Settings,
        *,
        entrypoint: str | None = None,
        command: str | None = None,
        timeout: float | None = None,
        docker: bool | None = None,
    ) -> RunOptions:
        """Options from flags (None = not given) and the configuration chain."""
        if entrypoint is not None and command is not None:
            raise UsageError("give --entrypoint or --command, not both")
        return cls(
            command=_resolve_command(settings, entrypoint, command),
            timeout=_resolve_timeout(settings, timeout),
            scrub=_resolve_scrub(settings),
            max_output_bytes=settings.get_int(
                git="gpte.maxOutputBytes",
                toml=("run", "max_output_bytes"),
                default=DEFAULT_MAX_OUTPUT_BYTES,
            ),
            docker=settings.get_bool(flag=docker or None, git="gpte.docker", default=False),
            docker_image=str(
                settings.get(
                    env=("GPTE_DOCKER_IMAGE",),
                    git="gpte.dockerImage",
                    toml=("run", "docker_image"),
                    default=DEFAULT_IMAGE,
                )
            ),
            docker_network=settings.get(git="gpte.dockerNetwork", toml=("run", "docker_network")),
        )

    def environment(self) -> ExecutionEnvironment:
        """The execution environment these options ask for (not yet checked)."""
        if self.docker:
            return DockerEnvironment(self.docker_image, network=self.docker_network)
        return LocalEnvironment()


def _resolve_command(settings: Settings, entrypoint: str | None, command: str | None) -> RunCommand:
    if command is not None:
        return RunCommand.shell(command, source="--command")
    if entrypoint is not None:
        return RunCommand.script(entrypoint, source="--entrypoint")
    for key in ("test", "build"):
        configured = settings.get(toml=("run", key))
        if configured is not None:
            if not isinstance(configured, str):
                raise ConfigError(f"[run] {key} in gpt-engineer.toml must be a string")
            return RunCommand.shell(configured, source=f"[run] {key} in gpt-engineer.toml")
    path = settings.get(git="gpte.entrypoint", toml=("run", "entrypoint"))
    if path is not None:
        return RunCommand.script(str(path), source="gpte.entrypoint")
    return RunCommand.script(DEFAULT_ENTRYPOINT, source="default")


def _resolve_scrub(settings: Settings) -> tuple[str, ...]:
    value = settings.get(env=("GPTE_SCRUB_ENV",), git="gpte.scrubEnv", toml=("run", "scrub_env"))
    if isinstance(value, list):  # TOML may give a list of names
        value = " ".join(str(item) for item in value)
    return parse_name_list(None if value is None else str(value))


def _resolve_timeout(settings: Settings, flag: float | None) -> float:
    seconds = settings.get_float(
        flag=flag,
        env=("GPTE_TIMEOUT",),
        git="gpte.timeout",
        toml=("run", "timeout"),
        default=DEFAULT_TIMEOUT,
        what="timeout (seconds)",
    )
    if not seconds > 0:
        raise UsageError(f"timeout must be positive, got {seconds!r}")
    return seconds
