"""The ``landlock`` seal (issue 37): Landlock, a seccomp filter and no capabilities on each program,
where bubblewrap's namespaces are refused (a container runtime's default profile, Kubernetes).

- ``ruleset``: Landlock's calls through ctypes, the rights of each ABI;
- ``seccomp``: the socket filter, assembled by hand, and a reader of it for the tests;
- ``privileges``: dropping every capability of a program run as root;
- ``rules``: what a program of a task may reach; the probe; the banner's words;
- ``starter`` and ``starter_main``: the small process that makes each sealed program, so the service
  is never forked for one.

Nothing here is imported by this package's ``__init__``: ``starter_main`` runs without the package.
"""
