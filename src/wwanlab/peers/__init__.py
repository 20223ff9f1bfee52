"""Real peers run as subprocesses or servers on loopback: Kannel, an HTTP origin."""
