"""Push content types: SI 1.0 (WAP-167), SL 1.0 (WAP-168), CO 1.0 (WAP-175).

Each has one code page. SI: WAP-167-ServiceInd-20010731-a section 8.3 (tags), 8.3.2
(attribute starts), 8.3.3 (values); SL: WAP-168 section 9.3; CO: WAP-175 section 8.3.
Public ids: WBXML 7.2.1 (5 = SI 1.0, 6 = SL 1.0, 7 = CO 1.0).
"""

from wwanlab.wap.wbxml.tables.base import TokenTable, attr_page, page

_URL_VALUES = {0x85: ".com/", 0x86: ".edu/", 0x87: ".net/", 0x88: ".org/"}

SI10 = TokenTable(
    name="si10",
    public_id=0x05,
    fpi="-//WAPFORUM//DTD SI 1.0//EN",
    system_id="http://www.wapforum.org/DTD/si.dtd",
    root="si",
    collapse_space=True,
    tags=page(0, {0x05: "si", 0x06: "indication", 0x07: "info", 0x08: "item"}),
    attr_starts=attr_page(
        0,
        {
            0x05: "action=signal-none",
            0x06: "action=signal-low",
            0x07: "action=signal-medium",
            0x08: "action=signal-high",
            0x09: "action=delete",
            0x0A: "created",
            0x0B: "href",
            0x0C: "href=http://",
            0x0D: "href=http://www.",
            0x0E: "href=https://",
            0x0F: "href=https://www.",
            0x10: "si-expires",
            0x11: "si-id",
            0x12: "class",
        },
    ),
    attr_values=page(0, _URL_VALUES),
    date_attrs=frozenset({"created", "si-expires"}),
)

SL10 = TokenTable(
    name="sl10",
    public_id=0x06,
    fpi="-//WAPFORUM//DTD SL 1.0//EN",
    system_id="http://www.wapforum.org/DTD/sl.dtd",
    root="sl",
    collapse_space=True,
    tags=page(0, {0x05: "sl"}),
    attr_starts=attr_page(
        0,
        {
            0x05: "action=execute-low",
            0x06: "action=execute-high",
            0x07: "action=cache",
            0x08: "href",
            0x09: "href=http://",
            0x0A: "href=http://www.",
            0x0B: "href=https://",
            0x0C: "href=https://www.",
        },
    ),
    attr_values=page(0, _URL_VALUES),
)

CO10 = TokenTable(
    name="co10",
    public_id=0x07,
    fpi="-//WAPFORUM//DTD CO 1.0//EN",
    system_id="http://www.wapforum.org/DTD/co_1.0.dtd",
    root="co",
    collapse_space=True,
    tags=page(0, {0x05: "co", 0x06: "invalidate-object", 0x07: "invalidate-service"}),
    attr_starts=attr_page(
        0,
        {
            0x05: "uri",
            0x06: "uri=http://",
            0x07: "uri=http://www.",
            0x08: "uri=https://",
            0x09: "uri=https://www.",
        },
    ),
    attr_values=page(0, _URL_VALUES),
)
