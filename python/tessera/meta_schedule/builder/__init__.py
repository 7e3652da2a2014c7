"""Builders (``tvm.meta_schedule.builder``): compile scheduled candidates to shared
libraries. Builder is the interface; LocalBuilder builds in local worker processes,
RayBuilder on the workers of a Ray cluster."""
from .builder import Builder, BuilderInput, BuilderResult
from .local_builder import LocalBuilder
from .ray_builder import RayBuilder

__all__ = ["Builder", "BuilderInput", "BuilderResult", "LocalBuilder", "RayBuilder"]
