"""The graded questions, one module per chapter (``ch01`` registers ``ch01.q1``, ``ch01.q2``, ...).

A module is imported the first time one of its ids is asked for, so ``import coursekit.grading``
stays light; each reference implementation imports the package code it grades against only when
it is called.
"""
