"""Interactive explorers (ipywidgets 7.6+ and 8) for the chapters; outside a live kernel each
falls back to a static figure, so the HTML book and a terminal still show something useful.
"""
