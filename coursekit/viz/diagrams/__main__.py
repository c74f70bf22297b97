"""``python -m coursekit.viz.diagrams book/*.ipynb``: redraw the diagrams the chapters embed."""

from coursekit.viz.diagrams.embed import main

raise SystemExit(main())
