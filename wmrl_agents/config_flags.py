"""A command's settings as one dataclass, the way TRL's configs are written: every field carries its
``help`` (and, where it has them, ``choices``, ``metavar``, ``group``) in its metadata, and the
command line, the YAML file and the resume check are all generated from the fields.

- :func:`add_arguments`: one ``--flag`` per field, plus ``--config FILE``; flags not given stay
  out of the namespace, so they never override the file.
- :func:`from_args`: the settings of a parsed command line (``--config`` file, then the flags).
- :func:`load_yaml` / :func:`save_yaml`: a YAML mapping of field names; an unknown key is a
  one-line error naming it.
- :func:`check_resume`: a run folder's saved settings against the new ones; a changed setting is
  a one-line error naming it, unless the command lists it as one a resumed run may change.
"""

from __future__ import annotations

import argparse
import os
import typing
from dataclasses import MISSING, Field, asdict, field, fields
from pathlib import Path
from typing import Any, TypeVar

import yaml

C = TypeVar("C")

__all__ = ["add_arguments", "check_resume", "comma_list", "flag", "from_args", "load_yaml", "option", "save_yaml"]


def option(default: Any, help: str, **extra: Any) -> Any:
    """A config field with its help (and e.g. ``choices``, ``metavar``, ``group``) in the metadata.
    A list default is copied for each instance."""
    if isinstance(default, list):
        return field(default_factory=lambda: list(default), metadata={"help": help, **extra})
    return field(default=default, metadata={"help": help, **extra})


def flag(name: str) -> str:
    """The command-line spelling of a field: ``anchor_rate`` -> ``anchor-rate``."""
    return name.replace("_", "-")


def comma_list(text: str) -> list[str]:
    """``"a, b,"`` -> ``["a", "b"]``."""
    return [t.strip() for t in text.split(",") if t.strip()]


def default_of(f: Field) -> Any:
    """A field's default (None where it has none)."""
    if f.default is not MISSING:
        return f.default
    return f.default_factory() if f.default_factory is not MISSING else None


def _base_type(hint: Any) -> Any:
    """``int`` for ``int | None``; list types are read as comma-separated text."""
    kinds = [k for k in typing.get_args(hint) if k is not type(None)] or [hint]
    return str if typing.get_origin(kinds[0]) is list else kinds[0]


def add_arguments(parser: argparse.ArgumentParser, cls: type) -> None:
    """One ``--flag`` per field of dataclass ``cls`` (help from its metadata; fields with a
    ``group`` go under that heading), plus ``--config``."""
    parser.add_argument("--config", metavar="FILE", help="a YAML file of these settings (flags given here override it)")
    hints = typing.get_type_hints(cls)
    groups: dict[str, argparse._ArgumentGroup] = {}
    for f in fields(cls):
        name = f.metadata.get("group")
        target = parser if name is None else groups.setdefault(name, parser.add_argument_group(name))
        kind = _base_type(hints[f.name])
        default = default_of(f)
        shown = ",".join(map(str, default)) if isinstance(default, list) else default
        help_text = f.metadata["help"].replace("%", "%%")
        if default is not None and kind is not bool:
            help_text += f" (default: {shown})"
        if kind is bool:
            target.add_argument(f"--{flag(f.name)}", action=argparse.BooleanOptionalAction, default=argparse.SUPPRESS,
                                help=help_text)
        else:
            target.add_argument(f"--{flag(f.name)}", type=kind, default=argparse.SUPPRESS, help=help_text,
                                metavar=f.metadata.get("metavar", f.name.upper()))


def from_args(cls: type[C], args: argparse.Namespace) -> C:
    """The settings of a parsed command line: the ``--config`` file, then the flags given."""
    given = {f.name: getattr(args, f.name) for f in fields(cls) if hasattr(args, f.name)}  # type: ignore[arg-type]
    if getattr(args, "config", None):
        return load_yaml(cls, args.config, **given)
    return cls(**given)


def load_yaml(cls: type[C], path: str | os.PathLike, **overrides: Any) -> C:
    """The settings in YAML file ``path`` (its keys are the field names), with ``overrides``."""
    try:
        data = yaml.safe_load(Path(path).read_text()) or {}
    except (OSError, yaml.YAMLError) as e:
        raise ValueError(f"cannot read the config file {path}: {' '.join(str(e).split())}") from None
    if not isinstance(data, dict):
        raise ValueError(f"the config file {path} must hold a mapping of settings (key: value)")
    known = [f.name for f in fields(cls)]  # type: ignore[arg-type]
    unknown = sorted(set(data) - set(known))
    if unknown:
        raise ValueError(f"unknown setting(s) in {path}: {', '.join(map(str, unknown))}; known: {', '.join(known)}")
    saved_names = getattr(cls, "saved_names", None)  # settings renamed since a file was written
    return cls(**{**(saved_names(data) if saved_names else data), **overrides})


def save_yaml(config: Any, path: Path) -> None:
    """Write ``config``'s fields to ``path`` (atomically: other processes may read it as it starts)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}")
    tmp.write_text(yaml.safe_dump(asdict(config), sort_keys=False))
    os.replace(tmp, path)


def check_resume(config: Any, path: Path, resumable: typing.Iterable[str]) -> bool:
    """Whether ``path`` holds saved settings (a run to resume); a ``ValueError`` naming every
    setting that differs from ``config``'s, other than the ``resumable`` ones."""
    if not path.is_file():
        return False
    saved = asdict(load_yaml(type(config), path))
    free = tuple(resumable)
    diff = [f"{k}={saved[k]!r} (now {v!r})" for k, v in asdict(config).items() if k not in free and saved[k] != v]
    if diff:
        raise ValueError(f"{path.parent} holds a run with other settings: {', '.join(diff)}; resume it with --config "
                         f"{path} (flags may change {', '.join(flag(k) for k in free)}), or give a new --out")
    return True
