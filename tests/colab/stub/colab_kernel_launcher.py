"""Stand-in for Colab's kernel launcher (``python -m colab_kernel_launcher -f FILE``).

Colab's kernelspec starts this module, which imports ``google.colab`` and then starts ipykernel;
the stand-in does the same with the stub ``google.colab`` of ``make test-colab``'s environment,
so that ``"google.colab" in sys.modules`` holds in every cell, as it does in Colab.
"""

import google.colab  # noqa: F401 (imported for its presence in sys.modules)
from ipykernel import kernelapp

if __name__ == "__main__":
    kernelapp.launch_new_instance()
