"""A request naming a human language points at the files of that language's locale.

Translations live in files and folders named by locale code (``translations/ru/ru.go``,
``src/locale/de.js``, ``providers/person/pt_BR/__init__.py``, ``locales/zh-tw/``), while a
request says the language in words ("fix russian E.164 error message", "Add translation ... in
English/Chinese/Chinese Taiwan"). The words match neither the paths nor the code (the Russian
file's code holds "ru", not "russian"), so every locale's file matched the request alike. The
codes of the languages a request names join it as terms: ISO 639-1, and the country code its
locale most often carries where that differs (``ja_JP``, ``zh_CN``, ``pt_BR``). Codes that are
stopwords (``it``, ``he``, ``no``) are never index terms and are left out.
"""

from __future__ import annotations

import re

from .terms import STOPWORDS

# Language (or a country said for its locale) -> the codes naming its locale.
LOCALE_CODES: dict[str, tuple[str, ...]] = {
    "arabic": ("ar",),
    "bengali": ("bn",),
    "brazilian": ("pt", "br"),
    "bulgarian": ("bg",),
    "catalan": ("ca",),
    "chinese": ("zh", "cn"),
    "croatian": ("hr",),
    "czech": ("cs", "cz"),
    "danish": ("da", "dk"),
    "dutch": ("nl",),
    "english": ("en",),
    "estonian": ("et", "ee"),
    "farsi": ("fa", "ir"),
    "finnish": ("fi",),
    "french": ("fr",),
    "german": ("de",),
    "greek": ("el", "gr"),
    "hebrew": ("iw", "il"),
    "hindi": ("hi",),
    "hungarian": ("hu",),
    "indonesian": ("id",),
    "italian": ("it",),
    "japanese": ("ja", "jp"),
    "korean": ("ko", "kr"),
    "latvian": ("lv",),
    "lithuanian": ("lt",),
    "malay": ("ms",),
    "norwegian": ("nb", "nn"),
    "persian": ("fa", "ir"),
    "polish": ("pl",),
    "portuguese": ("pt",),
    "romanian": ("ro",),
    "russian": ("ru",),
    "serbian": ("sr",),
    "slovak": ("sk",),
    "slovenian": ("sl", "si"),
    "spanish": ("es",),
    "swedish": ("sv", "se"),
    "taiwan": ("zh", "tw"),
    "taiwanese": ("zh", "tw"),
    "tamil": ("ta",),
    "thai": ("th",),
    "turkish": ("tr",),
    "ukrainian": ("uk", "ua"),
    "urdu": ("ur",),
    "vietnamese": ("vi", "vn"),
}

_LANGUAGE = re.compile(r"\b(" + "|".join(LOCALE_CODES) + r")\b", re.IGNORECASE)
# "polish" is a verb as often ("Promote stable, polish docs"): the language only when
# capitalised inside a sentence ("Fix Polish plural forms") or before a word about languages.
_LANGUAGE_WORD = re.compile(r"\s+(?:locale|translation|language|i18n)", re.IGNORECASE)


def locale_codes(line: str) -> list[str]:
    """The locale codes of the languages ``line`` names, each once, in order."""
    codes: list[str] = []
    for match in _LANGUAGE.finditer(line):
        if not _names_language(line, match):
            continue
        for code in LOCALE_CODES[match.group(1).lower()]:
            if code not in codes and code not in STOPWORDS:
                codes.append(code)
    return codes


def _names_language(line: str, match: re.Match[str]) -> bool:
    word = match.group(1)
    if word.lower() != "polish" or _LANGUAGE_WORD.match(line, match.end()):
        return True
    before = line[: match.start()].rstrip()
    return word[0] == "P" and bool(before) and before[-1] not in ".:!?"
