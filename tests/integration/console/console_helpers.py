"""What the console's browser tests share: a running `mcv serve` as they see it."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Served:
    """A running `mcv serve`: its address, its generated key and every line of its log so far."""

    base_url: str
    api_key: str
    log: list[str] = field(default_factory=list)

    def console(self, fragment: str = "") -> str:
        return f"{self.base_url}/console/{fragment}"
