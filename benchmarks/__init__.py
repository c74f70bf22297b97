"""Ratio benchmarks: each row times a coursekit function against its production twin in the same
run, on the same input, after checking that both give the same result. Run ``python -m benchmarks``.
"""
