"""Stand-in for Colab's ``google.colab`` package in ``make test-colab``'s environment.

Colab's kernel imports ``google.colab`` before the first cell runs, and the notebooks' set-up
cells take their Colab branch when ``"google.colab" in sys.modules``. This empty package, with
``colab_kernel_launcher`` beside it, gives the lane's kernel that state; it implements nothing of
Colab's API.
"""
