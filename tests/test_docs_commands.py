"""Every command of README.md and docs/*.md works when pasted, in order, into a fresh clone: its
program exists, its subcommand and every flag it uses appear in that command's ``--help``, the
files it reads are in the repository or written by an earlier command of the same page, and
``pip`` installs from the checkout with extras that pyproject.toml defines. The Python examples
of README.md and docs/rl.md run."""

from __future__ import annotations

import itertools
import os
import re
import shlex
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from gotown.cli import main as gotown_main

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
#: Where a command runs from the checkout: the project's virtualenv (the tests run in it).
VENV_BIN = Path(sys.executable).parent
#: The programs a command line can begin with (after ``NAME=value`` assignments)...
PROGRAMS = {"gotown", "pip", "python", "source", "curl"}
#: ... or the folders they are in.
FOLDERS = (".venv/bin/", "scripts/")
#: Options whose value is a file that the command writes, in any program.
WRITES = {"--out", "--save", "--json", "--plot", "--curve", "--results"}


@dataclass(frozen=True)
class Command:
    page: str
    line: int
    words: tuple[str, ...]
    #: Made of a span of flags alone and the command of its paragraph (only its flags count).
    fragment: bool = False

    def __str__(self) -> str:
        return f"{self.page}:{self.line}: {shlex.join(self.words)}"


def _without_comment(line: str) -> str:
    """A shell line up to its comment: a ``#`` that begins a word, outside quotes."""
    quote = ""
    for index, char in enumerate(line):
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "#" and (index == 0 or line[index - 1].isspace()):
            return line[:index]
    return line


def _words(text: str) -> list[str]:
    """The words of a shell line, without its ``NAME=value`` prefixes and its comment."""
    words = shlex.split(_without_comment(text))
    while words and re.fullmatch(r"[A-Z_][A-Z0-9_]*=.*", words[0]):
        words = words[1:]
    # A synopsis's optional part, [--seat N], is a flag and its value (but .[rl] is a word).
    words = [w.removeprefix("[") for w in words]
    return [w if "[" in w else w.removesuffix("]") for w in words]


def _is_command(words: list[str]) -> bool:
    return bool(words) and (words[0] in PROGRAMS or words[0].startswith(FOLDERS))


def _is_group(words: list[str] | tuple[str, ...]) -> bool:
    """Whether a ``gotown`` command line names a command of a group (``gotown admin backup``)."""
    program = words[0].removeprefix(".venv/bin/")
    command = gotown_main.commands.get(words[1]) if program == "gotown" and len(words) > 1 else None
    return isinstance(command, click.Group) and len(words) > 2 and not words[2].startswith("-")


def page_commands(page: Path) -> list[Command]:
    """The commands of a page, in order: each line of a shell block (a fenced block marked
    sh, bash or console, or unmarked with a command on its first line; ``\\`` continues a
    line), and each code span that is a command. A span of flags alone (``--seat``) belongs
    to the first command span of its paragraph, or to a script named there (``x/y.py``)."""
    text = page.read_text(encoding="utf-8")
    name = page.relative_to(ROOT).as_posix()
    found: list[Command] = []
    prose = text
    for block in re.finditer(r"^```(\w*)\n(.*?)^```", text, flags=re.M | re.S):
        prose = prose.replace(block.group(0), "\n" * block.group(0).count("\n"))
        language, body = block.group(1), block.group(2)
        first = body.lstrip().split("\n", 1)[0]
        if language not in ("sh", "bash", "console", "shell") and not (
            language == "" and _is_command(_words(first))
        ):
            continue
        start = text[: block.start()].count("\n") + 2
        for offset, line in enumerate(body.replace("\\\n", "  \n").split("\n")):
            if line.strip() and _is_command(words := _words(line.strip())):
                found.append(Command(name, start + offset, tuple(words)))
    for paragraph in re.finditer(r"(?:^.*\S.*\n?)+", prose, flags=re.M):
        owner: list[str] | None = None
        for span in re.finditer(r"`([^`]+)`", paragraph.group(0)):
            line = prose[: paragraph.start() + span.start()].count("\n") + 1
            try:
                words = _words(span.group(1).replace("\n", " "))
            except ValueError:  # (a quote that is not shell)
                continue
            if _is_command(words):
                found.append(Command(name, line, tuple(words)))
                owner = owner or words[: 2 + _is_group(words)]
            elif owner is None and len(words) == 1 and re.fullmatch(r"[\w/.-]+\.py", words[0]):
                owner = [".venv/bin/python", words[0]]
            elif words and words[0].startswith("--") and owner is not None:
                found.append(Command(name, line, (*owner, *words), fragment=True))
    return sorted(found, key=lambda command: command.line)


COMMANDS = [command for page in PAGES for command in page_commands(page)]


def _flags(words: tuple[str, ...] | list[str]) -> list[str]:
    """The options a command line uses (``--name`` or ``-x``; ``--name=value`` as ``--name``)."""
    return [w.split("=", 1)[0].strip("[]") for w in words if re.match(r"\[?-{1,2}[A-Za-z]", w)]


@cache
def gotown_help(subcommand: str | None) -> str:
    """``gotown SUBCOMMAND --help`` (``SUBCOMMAND``: one word, or a group's and its command's)."""
    args = [*subcommand.split(), "--help"] if subcommand else ["--help"]
    result = CliRunner().invoke(gotown_main, args)
    assert result.exit_code == 0, result.output
    return result.output


@cache
def program_help(*program: str) -> str:
    """The ``--help`` of a program run from the checkout."""
    run = subprocess.run(
        [*program, "--help"], cwd=ROOT, capture_output=True, text=True, timeout=120, check=False
    )
    assert run.returncode == 0, f"{' '.join(program)} --help: {run.stderr}"
    return run.stdout


@cache
def tracked() -> frozenset[str]:
    """The files and folders of a fresh clone (what git tracks)."""
    listing = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    folders = {str(Path(f).parents[i]) for f in listing for i in range(len(Path(f).parts) - 1)}
    return frozenset(listing) | folders


def _is_placeholder(value: str) -> bool:
    """DIR, FILE, RECORD.json, URL, ...: a value the reader chooses."""
    return value == "..." or bool(re.fullmatch(r"[A-Z][A-Z_]{2,}(\.\w+)?", value))


def _written(words: tuple[str, ...]) -> set[str]:
    return {value for flag, value in itertools.pairwise(words) if flag in WRITES}


def _gotown_inputs(words: tuple[str, ...]) -> list[str]:
    """The files a ``gotown`` command reads (its options and arguments that must exist), and
    the policy files of its ``ppo:path=FILE`` bots."""
    command = gotown_main.commands[words[1]]
    rest = list(words[2:])
    if _is_group(words):
        assert isinstance(command, click.Group)
        command, rest = command.commands[words[2]], rest[1:]
    parser = command.make_parser(click.Context(command))
    try:
        values, extra, _ = parser.parse_args(rest)
    except click.UsageError as error:
        raise AssertionError(error.format_message()) from None
    inputs = [w.split("path=", 1)[1] for w in words if w.startswith("ppo:path=")]
    for param in command.params:
        if isinstance(param.type, click.Path) and param.type.exists and param.name in values:
            value = values[param.name]  # (a str, a sequence of them, or click's "unset")
            if isinstance(value, str):
                inputs.append(value)
            elif isinstance(value, (list, tuple)):
                inputs += value
    return inputs + [w for w in extra if w != "..."]


def _check(command: Command, written: set[str]) -> None:
    words = command.words
    program = words[0].removeprefix(".venv/bin/")
    if program == "gotown" and len(words) == 1:
        help_text = gotown_help(None)
    elif program == "gotown":
        assert words[1] in gotown_main.commands, "no such subcommand"
        group = gotown_main.commands[words[1]]
        if _is_group(words):
            assert isinstance(group, click.Group) and words[2] in group.commands, "no such command"
        help_text = gotown_help(" ".join(words[1 : 2 + _is_group(words)]))
        for path in [] if command.fragment else _gotown_inputs(words):
            assert _is_placeholder(path) or path in tracked() or path in written, (
                f"{path} is neither in a fresh clone nor written by an earlier command"
            )
    elif program == "python" and words[1] == "-m":
        help_text = program_help(sys.executable, "-m", words[2])
        words = words[2:]
    elif program == "python":
        assert words[1] in tracked(), f"no script {words[1]} in the repository"
        help_text = program_help(sys.executable, words[1])
        words = words[1:]
    elif program.startswith("scripts/"):
        assert program in tracked() and os.access(ROOT / program, os.X_OK), "no such script"
        if program == "scripts/serve":  # (its arguments go to gotown serve)
            help_text = gotown_help("serve")
        elif program == "scripts/test":  # (its arguments go to pytest)
            help_text = program_help(sys.executable, "-m", "pytest")
        else:
            help_text = ""
    elif program == "pip":
        assert words[1] == "install", "pip install is the only pip command in the docs"
        targets = [w for w in words[2:] if not w.startswith("-")]
        defined = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
            "optional-dependencies"
        ]
        for target in targets:
            match = re.fullmatch(r"\.(?:\[([\w,-]+)\])?", target)
            assert match, f"{target}: gotown is not on a package index, install the checkout (.)"
            extras = (match.group(1) or "").split(",")
            assert set(extras) - {""} <= set(defined), f"{target}: an extra that is not defined"
        help_text = program_help(str(VENV_BIN / "pip"), "install")
    elif program == "source":
        assert words[1:] == (".venv/bin/activate",), "source what?"
        help_text = ""
    elif program == "curl":
        return  # (a running server's API, not a command of the project)
    else:
        pytest.fail(f"a command this test cannot check: {program}")
    for flag in _flags(words[1:]):
        assert re.search(rf"(?<![\w-]){re.escape(flag)}(?![\w-])", help_text), (
            f"{flag} is not in the --help"
        )


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_each_command_of_a_page_works_in_a_fresh_clone(page: Path) -> None:
    commands = [c for c in COMMANDS if c.page == page.relative_to(ROOT).as_posix()]
    written: set[str] = set()
    failures = []
    for command in commands:
        try:
            _check(command, written)
        except AssertionError as error:
            failures.append(f"{command}\n    {str(error).splitlines()[0]}")
        written |= _written(command.words)
    assert not failures, "\n".join(failures)


def test_the_commands_found_include_each_kind() -> None:
    # (so that the extraction above cannot silently find nothing)
    programs = {c.words[0] for c in COMMANDS}
    assert {"gotown", "scripts/serve", "source", ".venv/bin/python"} <= programs
    assert any(c.page == "docs/tui.md" and "--review-seat" in c.words for c in COMMANDS)
    assert any(c.page == "README.md" and c.words[:2] == ("gotown", "review") for c in COMMANDS)


def test_the_checker_catches_a_missing_flag_subcommand_file_and_an_index_install() -> None:
    bad = [
        ("gotown", "tournament", "hard", "--gamez", "3"),
        ("gotown", "tournement", "hard"),
        ("gotown", "review", "game.json"),
        ("gotown", "scenarios", "../shared/scenarios"),
        ("pip", "install", "gotown[rl]"),
        (".venv/bin/python", "examples/train_maskable_ppo.py", "--minute", "3"),
    ]
    for words in bad:
        with pytest.raises(AssertionError):
            _check(Command("test", 0, words), set())
    _check(Command("test", 0, ("gotown", "review", "game.json", "--seat", "0")), {"game.json"})


def test_the_readme_activates_the_virtualenv_before_its_first_gotown_command() -> None:
    readme = [c for c in COMMANDS if c.page == "README.md"]
    first = next(i for i, c in enumerate(readme) if c.words[0] == "gotown")
    assert any(c.words[0] == "source" for c in readme[:first])
    assert readme[0].words[0].startswith("scripts/")  # (it makes .venv)


def _python_blocks(page: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", (ROOT / page).read_text(), flags=re.S)


def test_the_readme_examples_run_in_order() -> None:
    namespace: dict[str, object] = {}
    blocks = _python_blocks("README.md")
    assert len(blocks) >= 2
    for block in blocks:
        exec(compile(block, "README.md", "exec"), namespace)
    assert getattr(namespace["game"], "is_over", False) and namespace["top"]


@pytest.mark.parametrize("block", _python_blocks("docs/rl.md"))
def test_a_python_example_of_docs_rl_runs(block: str) -> None:
    exec(compile(block, "docs/rl.md", "exec"), {})
