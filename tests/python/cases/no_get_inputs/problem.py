import torch


def get_init_inputs():
    return []
