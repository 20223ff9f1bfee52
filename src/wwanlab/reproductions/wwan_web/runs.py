"""The runs themselves: one page download through the browser model, one FTP transfer.

This is the seam to the web packages (``wwanlab.web``): pages, content transforms, the
browser and its options; the rest of the reproduction sees rows only.
"""

from wwanlab.experiments.scenario import Row
from wwanlab.reproductions.wwan_web.ftp import KB, ftp_download
from wwanlab.tcp import TcpConfig


def ftp_row(link: str, kb: int, seed: int) -> Row:
    result = ftp_download(link, kb * KB, seed, TcpConfig())
    return {"complete": result.complete, "seconds": result.seconds, "kbps": result.kbps}
