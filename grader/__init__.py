"""The oracle suite: pytest tests that grade an engine file against torch.autograd in float64.

python -m pytest grader --impl solutions/unbroadcast.py -m unbroadcast
"""
