"""``python -m coursekit.pretrain bert ...``: see :mod:`coursekit.pretrain.command`."""

from __future__ import annotations

from coursekit.pretrain.command import main

if __name__ == "__main__":
    raise SystemExit(main())
