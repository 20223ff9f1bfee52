"""The real-time emulator: real programs in a network namespace behind the link models.

``link.EmulatedLink`` sets up the namespace, its TUN devices, addresses, routes and NAT
(``netns``, ``instances``, ``nat``), leaves their removal to a guardian process
(``guardian``) that outlives a crash, and runs a ``forwarder.Forwarder`` between the
two TUN devices. ``shell`` is the ``wwanlab emulate`` command's body.
"""
