"""Which environment variables the program under test never sees."""

from __future__ import annotations

import pytest

from git_gpte.run import is_secret_name, parse_name_list, scrub_environment


@pytest.mark.parametrize(
    "name",
    [
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "ANTHROPIC_API_KEY",
        "AZURE_OPENAI_API_KEY",
        "GITHUB_TOKEN",
        "GH_TOKEN",
        "ACTIONS_RUNTIME_TOKEN",
        "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
        "ACTIONS_ID_TOKEN_REQUEST_URL",
        "ACTIONS_CACHE_URL",
        "NPM_TOKEN",
        "NODE_AUTH_TOKEN",
        "AWS_SECRET_ACCESS_KEY",
        "AWS_SESSION_TOKEN",
        "STRIPE_API_KEY",
        "MYSQL_ROOT_PASSWORD",
        "DBPASSWORD",
        "CLIENT_SECRET",
        "GOOGLE_APPLICATION_CREDENTIALS",
        "SSH_AUTH_SOCK",
        "GITHUB_ENV",
        "GITHUB_OUTPUT",
        "GIT_DIR",
        "GIT_INDEX_FILE",
        "STRIPE_KEY",
        "SENTRY_DSN",
        "SLACK_WEBHOOK_URL",
    ],
)
def test_secret_names_are_scrubbed(name: str) -> None:
    assert is_secret_name(name)


@pytest.mark.parametrize(
    "name",
    [
        "PATH",
        "HOME",
        "PWD",
        "LANG",
        "TOKENIZERS_PARALLELISM",
        "KEYBOARD",
        "GITHUB_SHA",
        "CI",
        "TERM",
    ],
)
def test_ordinary_names_are_kept(name: str) -> None:
    assert not is_secret_name(name)


def test_urls_carrying_a_password_are_scrubbed_whatever_their_name() -> None:
    env, removed = scrub_environment(
        {
            "DATABASE_URL": "postgres://app:hunter2@db.internal:5432/app",
            "REDIS_URL": "redis://:pw@cache:6379/0",
            "HOMEPAGE": "https://example.org/a:b@c",
            "PLAIN_URL": "https://example.org/",
        }
    )
    assert removed == ["DATABASE_URL", "REDIS_URL"]
    assert set(env) == {"HOMEPAGE", "PLAIN_URL"}


def test_scrub_environment_removes_builtins_and_user_patterns() -> None:
    env = {
        "PATH": "/bin",
        "OPENAI_API_KEY": "sk-1",
        "MY_CORP_THING": "x",
        "INTERNAL_A": "y",
        "INTERNAL": "kept: the pattern needs the underscore",
    }
    kept, removed = scrub_environment(env, parse_name_list("MY_CORP_THING, INTERNAL_*"))
    assert kept == {"PATH": "/bin", "INTERNAL": "kept: the pattern needs the underscore"}
    assert removed == ["INTERNAL_A", "MY_CORP_THING", "OPENAI_API_KEY"]


def test_parse_name_list_accepts_commas_and_spaces() -> None:
    assert parse_name_list(" A,B  C,\n D ,") == ("A", "B", "C", "D")
    assert parse_name_list("") == ()
    assert parse_name_list(None) == ()


@pytest.mark.parametrize(
    "name",
    [
        "GIT_CONFIG_PARAMETERS",
        "GIT_CONFIG_COUNT",
        "GIT_CONFIG_KEY_0",
        "GIT_CONFIG_VALUE_12",
        "NPM_CONFIG__AUTH",
        "NPM_CONFIG__AUTH_TOKEN",
        "YARN_NPM_AUTH_IDENT",
        "DOCKER_AUTH_CONFIG",
        "BUNDLE_GEMS__EXAMPLE__COM",
        "BUNDLE_RUBYGEMS__PKG__GITHUB__COM",
        "INPUT_OPENAI-API-KEY",
        "INPUT_GITHUB-TOKEN",
        "SMTP_PASS",
        "DB_PWD",
        "AZURE_DEVOPS_PAT",
        "SESSION_COOKIE",
    ],
)
def test_more_credential_names_are_scrubbed_by_rule(name: str) -> None:
    assert is_secret_name(name)


@pytest.mark.parametrize(
    "name", ["OLDPWD", "BUNDLE_PATH", "BUNDLE_GEMFILE", "LD_LIBRARY_PATH", "GIT_CONFIG_NOSYSTEM"]
)
def test_names_that_only_resemble_credentials_are_kept(name: str) -> None:
    assert not is_secret_name(name)


def test_every_documented_rule_removes_its_example_and_is_in_the_readme() -> None:
    from pathlib import Path

    from git_gpte.run.scrub import SCRUB_RULES

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    for rule in SCRUB_RULES:
        name, _, value = rule.example.partition("=")
        _, removed = scrub_environment({name: value})
        assert removed == [name], rule.rule
        assert f"| {rule.rule} | `{rule.example}` |" in readme, rule.rule
