"""The runs themselves: one page download through the browser model, one FTP transfer.

This is the seam to the web packages (``wwanlab.web``): pages, content transforms, the
browser and its options; the rest of the reproduction sees rows only.
"""

from wwanlab.experiments.scenario import Row
from wwanlab.reproductions.wwan_web.ftp import KB, ftp_download
from wwanlab.web.topology import linux_2_4


def ftp_row(link: str, kb: int, seed: int) -> Row:
    result = ftp_download(link, kb * KB, seed, linux_2_4())
    return {"complete": result.complete, "seconds": result.seconds, "kbps": result.kbps}
