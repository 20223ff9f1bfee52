"""WSP assigned numbers: header fields, content types, parameters, charsets, languages.

Sources: WAP-203-WSP Appendix A (Tables 38-42), WAP-230-WSP for encoding versions 1.2 to
1.5, and the OMNA WSP registries that took the tables over. Each well-known code carries
the encoding version that introduced it; an encoder told to speak an older version must
not use it (``field_code``, ``content_type_code``, ``parameter_code``).
"""

EncodingVersion = tuple[int, int]
V1_1: EncodingVersion = (1, 1)
V1_2: EncodingVersion = (1, 2)
V1_3: EncodingVersion = (1, 3)
V1_4: EncodingVersion = (1, 4)
V1_5: EncodingVersion = (1, 5)
V1_6: EncodingVersion = (1, 6)
DEFAULT_ENCODING_VERSION = V1_2  # WAP-230 8.4.2.70: assumed without Encoding-Version

# WSP Table 39 / OMNA header field names: (code, canonical name, version). Four fields
# got new codes in 1.3 and three again in 1.4 (their values gained forms); Expect moved
# in 1.5. Kannel numbers the 1.5 entries one lower (no re-assigned Expect); we follow
# OMNA and Wireshark, see docs/wsp-headers.md.
FIELDS: tuple[tuple[int, str, EncodingVersion], ...] = (
    (0x00, "Accept", V1_1),
    (0x01, "Accept-Charset", V1_1),
    (0x02, "Accept-Encoding", V1_1),
    (0x03, "Accept-Language", V1_1),
    (0x04, "Accept-Ranges", V1_1),
    (0x05, "Age", V1_1),
    (0x06, "Allow", V1_1),
    (0x07, "Authorization", V1_1),
    (0x08, "Cache-Control", V1_1),
    (0x09, "Connection", V1_1),
    (0x0A, "Content-Base", V1_1),
    (0x0B, "Content-Encoding", V1_1),
    (0x0C, "Content-Language", V1_1),
    (0x0D, "Content-Length", V1_1),
    (0x0E, "Content-Location", V1_1),
    (0x0F, "Content-MD5", V1_1),
    (0x10, "Content-Range", V1_1),
    (0x11, "Content-Type", V1_1),
    (0x12, "Date", V1_1),
    (0x13, "ETag", V1_1),
    (0x14, "Expires", V1_1),
    (0x15, "From", V1_1),
    (0x16, "Host", V1_1),
    (0x17, "If-Modified-Since", V1_1),
    (0x18, "If-Match", V1_1),
    (0x19, "If-None-Match", V1_1),
    (0x1A, "If-Range", V1_1),
    (0x1B, "If-Unmodified-Since", V1_1),
    (0x1C, "Location", V1_1),
    (0x1D, "Last-Modified", V1_1),
    (0x1E, "Max-Forwards", V1_1),
    (0x1F, "Pragma", V1_1),
    (0x20, "Proxy-Authenticate", V1_1),
    (0x21, "Proxy-Authorization", V1_1),
    (0x22, "Public", V1_1),
    (0x23, "Range", V1_1),
    (0x24, "Referer", V1_1),
    (0x25, "Retry-After", V1_1),
    (0x26, "Server", V1_1),
    (0x27, "Transfer-Encoding", V1_1),
    (0x28, "Upgrade", V1_1),
    (0x29, "User-Agent", V1_1),
    (0x2A, "Vary", V1_1),
    (0x2B, "Via", V1_1),
    (0x2C, "Warning", V1_1),
    (0x2D, "WWW-Authenticate", V1_1),
    (0x2E, "Content-Disposition", V1_1),
    (0x2F, "X-Wap-Application-Id", V1_2),
    (0x30, "X-Wap-Content-URI", V1_2),
    (0x31, "X-Wap-Initiator-URI", V1_2),
    (0x32, "Accept-Application", V1_2),
    (0x33, "Bearer-Indication", V1_2),
    (0x34, "Push-Flag", V1_2),
    (0x35, "Profile", V1_2),
    (0x36, "Profile-Diff", V1_2),
    (0x37, "Profile-Warning", V1_2),
    (0x38, "Expect", V1_3),
    (0x39, "TE", V1_3),
    (0x3A, "Trailer", V1_3),
    (0x3B, "Accept-Charset", V1_3),
    (0x3C, "Accept-Encoding", V1_3),
    (0x3D, "Cache-Control", V1_3),
    (0x3E, "Content-Range", V1_3),
    (0x3F, "X-Wap-Tod", V1_3),
    (0x40, "Content-ID", V1_3),
    (0x41, "Set-Cookie", V1_3),
    (0x42, "Cookie", V1_3),
    (0x43, "Encoding-Version", V1_3),
    (0x44, "Profile-Warning", V1_4),
    (0x45, "Content-Disposition", V1_4),
    (0x46, "X-WAP-Security", V1_4),
    (0x47, "Cache-Control", V1_4),
    (0x48, "Expect", V1_5),
    (0x49, "X-Wap-Loc-Invocation", V1_5),
    (0x4A, "X-Wap-Loc-Delivery", V1_5),
)

# WSP Table 40 / OMNA content types. 0x0A and 0x16 are disputed (docs/wsp-headers.md):
# OMNA's names are used; the other spellings in ``CONTENT_TYPE_ALIASES``.
CONTENT_TYPES: tuple[tuple[int, str, EncodingVersion], ...] = (
    *(
        (code, name, version)
        for code, (name, version) in enumerate(
            [
                ("*/*", V1_1),
                ("text/*", V1_1),
                ("text/html", V1_1),
                ("text/plain", V1_1),
                ("text/x-hdml", V1_1),
                ("text/x-ttml", V1_1),
                ("text/x-vCalendar", V1_1),
                ("text/x-vCard", V1_1),
                ("text/vnd.wap.wml", V1_1),
                ("text/vnd.wap.wmlscript", V1_1),
                ("text/vnd.wap.wta-event", V1_1),
                ("multipart/*", V1_1),
                ("multipart/mixed", V1_1),
                ("multipart/form-data", V1_1),
                ("multipart/byteranges", V1_1),
                ("multipart/alternative", V1_1),
                ("application/*", V1_1),
                ("application/java-vm", V1_1),
                ("application/x-www-form-urlencoded", V1_1),
                ("application/x-hdmlc", V1_1),
                ("application/vnd.wap.wmlc", V1_1),
                ("application/vnd.wap.wmlscriptc", V1_1),
                ("application/vnd.wap.wta-eventc", V1_1),
                ("application/vnd.wap.uaprof", V1_1),
                ("application/vnd.wap.wtls-ca-certificate", V1_1),
                ("application/vnd.wap.wtls-user-certificate", V1_1),
                ("application/x-x509-ca-cert", V1_1),
                ("application/x-x509-user-cert", V1_1),
                ("image/*", V1_1),
                ("image/gif", V1_1),
                ("image/jpeg", V1_1),
                ("image/tiff", V1_1),
                ("image/png", V1_1),
                ("image/vnd.wap.wbmp", V1_1),
                ("application/vnd.wap.multipart.*", V1_1),
                ("application/vnd.wap.multipart.mixed", V1_1),
                ("application/vnd.wap.multipart.form-data", V1_1),
                ("application/vnd.wap.multipart.byteranges", V1_1),
                ("application/vnd.wap.multipart.alternative", V1_1),
                ("application/xml", V1_1),
                ("text/xml", V1_1),
                ("application/vnd.wap.wbxml", V1_1),
                ("application/x-x968-cross-cert", V1_1),
                ("application/x-x968-ca-cert", V1_1),
                ("application/x-x968-user-cert", V1_1),
                ("text/vnd.wap.si", V1_1),
                ("application/vnd.wap.sic", V1_2),
                ("text/vnd.wap.sl", V1_2),
                ("application/vnd.wap.slc", V1_2),
                ("text/vnd.wap.co", V1_2),
                ("application/vnd.wap.coc", V1_2),
                ("application/vnd.wap.multipart.related", V1_2),
                ("application/vnd.wap.sia", V1_2),
                ("text/vnd.wap.connectivity-xml", V1_3),
                ("application/vnd.wap.connectivity-wbxml", V1_3),
                ("application/pkcs7-mime", V1_4),
                ("application/vnd.wap.hashed-certificate", V1_4),
                ("application/vnd.wap.signed-certificate", V1_4),
                ("application/vnd.wap.cert-response", V1_4),
                ("application/xhtml+xml", V1_4),
                ("application/wml+xml", V1_4),
                ("text/css", V1_4),
                ("application/vnd.wap.mms-message", V1_4),
                ("application/vnd.wap.rollover-certificate", V1_4),
                ("application/vnd.wap.locc+wbxml", V1_5),
                ("application/vnd.wap.loc+xml", V1_5),
                ("application/vnd.syncml.dm+wbxml", V1_5),
                ("application/vnd.syncml.dm+xml", V1_5),
                ("application/vnd.syncml.notification", V1_5),
                ("application/vnd.wap.xhtml+xml", V1_5),
                ("application/vnd.wv.csp.cir", V1_5),
                ("application/vnd.oma.dd+xml", V1_5),
                ("application/vnd.oma.drm.message", V1_5),
                ("application/vnd.oma.drm.content", V1_5),
                ("application/vnd.oma.drm.rights+xml", V1_5),
                ("application/vnd.oma.drm.rights+wbxml", V1_5),
                ("application/vnd.wv.csp+xml", V1_5),
                ("application/vnd.wv.csp+wbxml", V1_5),
                ("application/vnd.syncml.ds.notification", V1_5),
                ("audio/*", V1_6),
                ("video/*", V1_6),
                ("application/vnd.oma.dd2+xml", V1_6),
                ("application/mikey", V1_6),
            ]
        )
    ),
    # Assigned after 1.6 without an encoding version ("TBD" in the registry); 0x59 is
    # unassigned. Kannel 1.4.5 sends 0x5A for application/octet-stream and tshark
    # decodes it so; Android's and Firefox OS's WSP decoders carry the same numbers.
    (0x53, "application/vnd.oma.dcd", V1_6),
    (0x54, "application/vnd.oma.dcdc", V1_6),
    (0x55, "text/x-vMessage", V1_6),
    (0x56, "application/vnd.omads-email+wbxml", V1_6),
    (0x57, "text/x-vBookmark", V1_6),
    (0x58, "application/vnd.syncml.dm.notification", V1_6),
    (0x5A, "application/octet-stream", V1_6),
)

# The other spellings of the disputed codes: Wireshark's and Kannel's.
CONTENT_TYPE_ALIASES: dict[str, int] = {
    "text/vnd.wap.channel": 0x0A,  # Wireshark
    "application/vnd.wap.catc": 0x0A,  # Kannel
    "application/vnd.wap.channelc": 0x16,  # Wireshark
    "application/vnd.wap.wsic": 0x16,  # Kannel
}

# OMNA registered content types (0x0100-0xFFFF), sent as a Long-integer.
REGISTERED_CONTENT_TYPES: dict[int, str] = {
    0x0201: "application/vnd.uplanet.cacheop-wbxml",
    0x0202: "application/vnd.uplanet.signal",
    0x0203: "application/vnd.uplanet.alert-wbxml",
    0x0204: "application/vnd.uplanet.list-wbxml",
    0x0205: "application/vnd.uplanet.listcmd-wbxml",
    0x0206: "application/vnd.uplanet.channel-wbxml",
    0x0207: "application/vnd.uplanet.provisioning-status-uri",
    0x0208: "x-wap.multipart/vnd.uplanet.header-set",
    0x0209: "application/vnd.uplanet.bearer-choice-wbxml",
    0x020A: "application/vnd.phonecom.mmc-wbxml",
    0x020B: "application/vnd.nokia.syncset+wbxml",
    0x020C: "image/x-up-wpng",
    0x0300: "application/iota.mmc-wbxml",
    0x0301: "application/iota.mmc-xml",
    0x0302: "application/vnd.syncml+xml",
    0x0303: "application/vnd.syncml+wbxml",
    0x0304: "text/vnd.wap.emn+xml",
    0x0305: "text/calendar",
}

# WSP Table 38 / OMNA header parameters: (code, name, value type, version). The value
# type names the rule in WSP 8.4.2.4 the decoder applies.
PARAMETERS: tuple[tuple[int, str, str, EncodingVersion], ...] = (
    (0x00, "q", "q-value", V1_1),
    (0x01, "charset", "charset", V1_1),
    (0x02, "level", "version", V1_1),
    (0x03, "type", "integer", V1_1),
    (0x04, "uaprof", "untyped", V1_1),
    (0x05, "name", "text-string", V1_1),
    (0x06, "filename", "text-string", V1_1),
    (0x07, "differences", "field-name", V1_1),
    (0x08, "padding", "short-integer", V1_1),
    (0x09, "type", "constrained-encoding", V1_2),
    (0x0A, "start", "text-string", V1_2),
    (0x0B, "start-info", "text-string", V1_2),
    (0x0C, "comment", "text-string", V1_3),
    (0x0D, "domain", "text-string", V1_3),
    (0x0E, "max-age", "delta-seconds", V1_3),
    (0x0F, "path", "text-string", V1_3),
    (0x10, "secure", "no-value", V1_3),
    (0x11, "sec", "short-integer", V1_4),
    (0x12, "mac", "text-value", V1_4),
    (0x13, "creation-date", "date", V1_4),
    (0x14, "modification-date", "date", V1_4),
    (0x15, "read-date", "date", V1_4),
    (0x16, "size", "integer", V1_4),
    (0x17, "name", "text-value", V1_4),
    (0x18, "filename", "text-value", V1_4),
    (0x19, "start", "text-value", V1_4),
    (0x1A, "start-info", "text-value", V1_4),
    (0x1B, "comment", "text-value", V1_4),
    (0x1C, "domain", "text-value", V1_4),
    (0x1D, "path", "text-value", V1_4),
)

# WSP Table 42: character sets by IANA MIBenum; the value is the MIBenum itself.
CHARSETS: dict[str, int] = {
    "us-ascii": 3,
    "iso-8859-1": 4,
    "iso-8859-2": 5,
    "iso-8859-3": 6,
    "iso-8859-4": 7,
    "iso-8859-5": 8,
    "iso-8859-6": 9,
    "iso-8859-7": 10,
    "iso-8859-8": 11,
    "iso-8859-9": 12,
    "shift_jis": 17,
    "euc-jp": 18,
    "iso-2022-kr": 37,
    "euc-kr": 38,
    "iso-2022-jp": 39,
    "iso-2022-jp-2": 40,
    "utf-8": 106,
    "iso-8859-15": 111,
    "gbk": 113,
    "gb18030": 114,
    "iso-10646-ucs-2": 1000,
    "utf-16be": 1013,
    "utf-16le": 1014,
    "utf-16": 1015,
    "utf-32": 1017,
    "gb2312": 2025,
    "big5": 2026,
    "koi8-r": 2084,
    "windows-1250": 2250,
    "windows-1251": 2251,
    "windows-1252": 2252,
    "windows-1253": 2253,
    "windows-1254": 2254,
    "windows-1255": 2255,
    "windows-1256": 2256,
    "windows-1257": 2257,
    "windows-1258": 2258,
}

# WSP Table 41: ISO 639 languages (Wireshark's rendering of the table's names).
LANGUAGES: dict[str, int] = {
    "*": 0x00,
    "aa": 0x01,
    "ab": 0x02,
    "af": 0x03,
    "am": 0x04,
    "ar": 0x05,
    "as": 0x06,
    "ay": 0x07,
    "az": 0x08,
    "ba": 0x09,
    "be": 0x0A,
    "bg": 0x0B,
    "bh": 0x0C,
    "bi": 0x0D,
    "bn": 0x0E,
    "bo": 0x0F,
    "br": 0x10,
    "ca": 0x11,
    "co": 0x12,
    "cs": 0x13,
    "cy": 0x14,
    "da": 0x15,
    "de": 0x16,
    "dz": 0x17,
    "el": 0x18,
    "en": 0x19,
    "eo": 0x1A,
    "es": 0x1B,
    "et": 0x1C,
    "eu": 0x1D,
    "fa": 0x1E,
    "fi": 0x1F,
    "fj": 0x20,
    "ur": 0x21,
    "fr": 0x22,
    "uz": 0x23,
    "ga": 0x24,
    "gd": 0x25,
    "gl": 0x26,
    "gn": 0x27,
    "gu": 0x28,
    "ha": 0x29,
    "he": 0x2A,
    "hi": 0x2B,
    "hr": 0x2C,
    "hu": 0x2D,
    "hy": 0x2E,
    "vi": 0x2F,
    "id": 0x30,
    "wo": 0x31,
    "xh": 0x32,
    "is": 0x33,
    "it": 0x34,
    "yo": 0x35,
    "ja": 0x36,
    "jw": 0x37,
    "ka": 0x38,
    "kk": 0x39,
    "za": 0x3A,
    "km": 0x3B,
    "kn": 0x3C,
    "ko": 0x3D,
    "ks": 0x3E,
    "ku": 0x3F,
    "ky": 0x40,
    "zh": 0x41,
    "ln": 0x42,
    "lo": 0x43,
    "lt": 0x44,
    "lv": 0x45,
    "mg": 0x46,
    "mi": 0x47,
    "mk": 0x48,
    "ml": 0x49,
    "mn": 0x4A,
    "mo": 0x4B,
    "mr": 0x4C,
    "ms": 0x4D,
    "mt": 0x4E,
    "my": 0x4F,
    "uk": 0x50,
    "ne": 0x51,
    "nl": 0x52,
    "no": 0x53,
    "oc": 0x54,
    "om": 0x55,
    "or": 0x56,
    "pa": 0x57,
    "po": 0x58,
    "ps": 0x59,
    "pt": 0x5A,
    "qu": 0x5B,
    "zu": 0x5C,
    "rn": 0x5D,
    "ro": 0x5E,
    "ru": 0x5F,
    "rw": 0x60,
    "sa": 0x61,
    "sd": 0x62,
    "sg": 0x63,
    "sh": 0x64,
    "si": 0x65,
    "sk": 0x66,
    "sl": 0x67,
    "sm": 0x68,
    "sn": 0x69,
    "so": 0x6A,
    "sq": 0x6B,
    "sr": 0x6C,
    "ss": 0x6D,
    "st": 0x6E,
    "su": 0x6F,
    "sv": 0x70,
    "sw": 0x71,
    "ta": 0x72,
    "te": 0x73,
    "tg": 0x74,
    "th": 0x75,
    "ti": 0x76,
    "tk": 0x77,
    "tl": 0x78,
    "tn": 0x79,
    "to": 0x7A,
    "tr": 0x7B,
    "ts": 0x7C,
    "tt": 0x7D,
    "tw": 0x7E,
    "ug": 0x7F,
    "na": 0x81,
    "fo": 0x82,
    "fy": 0x83,
    "ia": 0x84,
    "vo": 0x85,
    "ie": 0x86,
    "ik": 0x87,
    "yi": 0x88,
    "iu": 0x89,
    "kl": 0x8A,
    "la": 0x8B,
    "rm": 0x8C,
}


def _by_name(
    table: tuple[tuple[int, str, EncodingVersion], ...],
) -> dict[str, list[tuple[int, EncodingVersion]]]:
    index: dict[str, list[tuple[int, EncodingVersion]]] = {}
    for code, name, version in table:
        index.setdefault(name.lower(), []).append((code, version))
    return index


FIELD_NAMES: dict[int, str] = {code: name for code, name, _ in FIELDS}
CONTENT_TYPE_NAMES: dict[int, str] = {code: name for code, name, _ in CONTENT_TYPES}
PARAMETER_INFO: dict[int, tuple[str, str]] = {c: (n, kind) for c, n, kind, _ in PARAMETERS}
CHARSET_NAMES: dict[int, str] = {number: name for name, number in CHARSETS.items()}
LANGUAGE_NAMES: dict[int, str] = {number: name for name, number in LANGUAGES.items()}
_FIELDS_BY_NAME = _by_name(FIELDS)
_PARAMS_BY_NAME = _by_name(tuple((c, n, v) for c, n, _, v in PARAMETERS))


def _newest(candidates: list[tuple[int, EncodingVersion]], version: EncodingVersion) -> int | None:
    usable = [(v, code) for code, v in candidates if v <= version]
    return max(usable)[1] if usable else None


def field_code(name: str, version: EncodingVersion) -> int | None:
    """The newest code for header ``name`` that ``version`` knows, or None."""
    return _newest(_FIELDS_BY_NAME.get(name.lower(), []), version)


def content_type_code(media: str, version: EncodingVersion) -> int | None:
    """The well-known or registered number of a media type usable at ``version``.

    Names match exactly, so that decoding gives back the spelling that was encoded."""
    if media in CONTENT_TYPE_ALIASES:
        return CONTENT_TYPE_ALIASES[media]
    code = _newest([(c, v) for c, name, v in CONTENT_TYPES if name == media], version)
    if code is not None:
        return code
    for number, name in REGISTERED_CONTENT_TYPES.items():
        if name == media:
            return number
    return None


def parameter_code(name: str, version: EncodingVersion) -> int | None:
    return _newest(_PARAMS_BY_NAME.get(name.lower(), []), version)
