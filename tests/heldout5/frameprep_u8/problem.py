# Held-out suite 5 (tests/heldout5/README.md): one 480 x 640 RGB uint8 camera frame (HWC, 900 KiB)
# resized bilinearly to size x size (224: half-pixel centres, as F.interpolate(align_corners=False)),
# scaled to [0, 1] and normalized by the ImageNet mean and std, float32 CHW: the preprocessing of
# one frame, about what a launch costs.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self, size=224):
        super().__init__()
        self.size = size

    def forward(self, img):
        x = img.permute(2, 0, 1).unsqueeze(0).float()
        y = F.interpolate(x, size=(self.size, self.size), mode="bilinear", align_corners=False)[0]
        mean = torch.tensor([0.485, 0.456, 0.406], device=img.device).view(3, 1, 1)
        std = torch.tensor([0.229, 0.224, 0.225], device=img.device).view(3, 1, 1)
        return (y / 255.0 - mean) / std


def get_inputs():
    return [torch.randint(0, 256, (480, 640, 3), dtype=torch.uint8)]


def get_init_inputs():
    return [224]
