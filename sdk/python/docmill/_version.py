"""The SDK's version: the docmill server's, stamped into the wheel by
``make sdk-python`` (this file in the source tree says "devel")."""

SERVER_VERSION = "devel"
"""The server version this SDK was built with, as ``docmill version`` prints it."""

__version__ = "0+devel"
"""SERVER_VERSION in PEP 440 form (the wheel's version)."""
