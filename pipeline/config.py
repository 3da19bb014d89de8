"""The user's settings: who they are (the report's featured player) and the other names they play under.

A TOML file, the first found of ``$OFC_CONFIG``, ``./ofc.toml`` and ``$XDG_CONFIG_HOME/ofc/config.toml``
(``~/.config/ofc/config.toml``)::

    player = "Ann"            # the featured player of every report ($OFC_PLAYER overrides it)
    min_hands = 100           # players with fewer hands are left out of rankings (default: a tenth of the
                              # busiest player's hands in each game, at most 100)

    [aliases]                 # one player under several names: each alias reads as the player
    Ann = ["ann_ofc", "AnnP"]

Every setting is optional; a file that does not parse or validate is an error naming the file and the field.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ofc.pipeline.errors import InputError

__all__ = ["Config", "ConfigError", "config_path", "load_config"]


class ConfigError(InputError):
    """A settings file that cannot be read."""


class Config(BaseModel):
    """What a user sets once instead of on every command."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    player: str | None = Field(None, description="The featured player of every report.")
    min_hands: int | None = Field(
        None, ge=1, description="Fewest hands a player needs to be ranked (default: it follows each game's players)."
    )
    aliases: dict[str, list[str]] = Field(
        default_factory=dict, description="Each player's other names: every one reads as the player."
    )

    @field_validator("aliases")
    @classmethod
    def _one_owner(cls, value: dict[str, list[str]]) -> dict[str, list[str]]:
        owner: dict[str, str] = {}
        for player, names in value.items():
            for name in names:
                if name in value and name != player:
                    raise InputError(f"{name!r} is a player with aliases of its own and an alias of {player!r}")
                if owner.setdefault(name, player) != player:
                    raise InputError(f"{name!r} is an alias of both {owner[name]!r} and {player!r}")
        return value

    def alias_map(self) -> dict[str, str]:
        """``{alias: player}`` for every alias that is not the player's own name."""
        return {a: p for p, names in self.aliases.items() for a in names if a != p}

    def canonical(self, name: str) -> str:
        """The player ``name`` stands for: the player an alias (in any case) belongs to, else ``name``."""
        folded = {a.casefold(): p for a, p in self.alias_map().items()}
        return folded.get(name.casefold(), name)

    def names_of(self, player: str) -> list[str]:
        """The player's name and every alias."""
        return [player, *(a for a in self.aliases.get(player, []) if a != player)]


def config_path() -> Path | None:
    """The settings file in use, or None."""
    named = os.environ.get("OFC_CONFIG")
    if named:
        return Path(named)
    here = Path("ofc.toml")
    if here.is_file():
        return here
    home = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config") / "ofc" / "config.toml"
    return home if home.is_file() else None


def load_config(path: Path | None = None) -> Config:
    """The user's settings (defaults when there is no file), with ``$OFC_PLAYER`` over the file's player."""
    path = path or config_path()
    doc: dict[str, object] = {}
    if path is not None:
        try:
            doc = tomllib.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ConfigError(f"{path}: no such settings file ($OFC_CONFIG names it)") from None
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            raise ConfigError(f"{path}: cannot read settings: {exc}") from None
    if os.environ.get("OFC_PLAYER"):
        doc["player"] = os.environ["OFC_PLAYER"]
    try:
        return Config.model_validate(doc)
    except ValidationError as exc:
        where = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'file'}: {e['msg']}" for e in exc.errors())
        raise ConfigError(f"{path or '$OFC_PLAYER'}: {where}") from None
