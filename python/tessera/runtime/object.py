"""Base class of every Python-visible Tessera object.

A Python class registered with ``register_object("type.key")`` subclasses
:class:`Object`; C++ values of that type come back as instances of it.  Fields
declared in C++ (reflection) read as attributes: ``var.name_hint``.
Equality and hashing are by identity, as in TVM (``same_as``); structural
comparison is ``tvm.ir.structural_equal``.
"""
from .. import _core

Object = _core.Object

__all__ = ["Object"]
