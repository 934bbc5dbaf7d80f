"""Source files holding long tables: Go locale files of translations."""

from __future__ import annotations

LANGUAGES = ("de", "es", "fr", "nl", "pl", "pt", "ru", "sv")


def _entry(tag: str, text: str) -> str:
    return f'\t\t{{\n\t\t\ttag:         "{tag}",\n\t\t\ttranslation: "{text}",\n\t\t}},\n'


def translations(lang: str, rules: int) -> str:
    """A Go locale file: one function whose body is a long slice literal of messages, the
    E.164 one in the middle; every locale's alike but for its name."""
    entries = [_entry(f"rule{n}", f"{{0}} must follow rule{n}") for n in range(rules)]
    entries.insert(rules // 2, _entry("e164", "{0} must be an E.164 number"))
    return (
        f"package {lang}\n\n"
        f"// RegisterDefaultTranslations registers the messages of {lang}.\n"
        "func RegisterDefaultTranslations(register func(tag, text string)) {\n"
        "\ttranslations := []struct {\n\t\ttag         string\n\t\ttranslation string\n\t}{\n"
        + "".join(entries)
        + "\t}\n\tfor _, t := range translations {\n\t\tregister(t.tag, t.translation)\n\t}\n}\n"
    )


def line_of(text: str, needle: str) -> int:
    return text.split("\n").index(needle) + 1
