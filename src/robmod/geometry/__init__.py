"""Geometric models: elementary transforms, DGM."""
from .transforms import frame_transform, frame_transforms, kk_transform

__all__ = ["kk_transform", "frame_transform", "frame_transforms"]
