"""SyncML 1.1 and 1.2 (SyncML Representation Protocol, WBXML code pages).

SyncML 1.1: syncml_represent_v11_20020215 section 8.2 (page 0 SyncML, page 1 MetInf),
DevInf 1.1: syncml_devinf_v11_20020215 section 6; SyncML 1.2:
OMA-TS-SyncML_RepPro-V1_2 section 8 and OMA-TS-SyncML_MetaInfo-V1_2, DevInf 1.2:
OMA-TS-DS_DevInf-V1_2 section 6. SyncML has no attribute tokens: the only attributes are
``xmlns`` declarations, which select the code page and are not sent. Public ids (SyncML
registered them): 0x0FD3 SyncML 1.1, 0x0FD4 DevInf 1.1, 0x1201 SyncML 1.2,
0x1202 MetInf 1.2, 0x1203 DevInf 1.2.
"""

from wwanlab.wap.wbxml.tables.base import TokenTable, page

_SYNCML_11 = {
    0x05: "Add", 0x06: "Alert", 0x07: "Archive", 0x08: "Atomic", 0x09: "Chal",
    0x0A: "Cmd", 0x0B: "CmdID", 0x0C: "CmdRef", 0x0D: "Copy", 0x0E: "Cred", 0x0F: "Data",
    0x10: "Delete", 0x11: "Exec", 0x12: "Final", 0x13: "Get", 0x14: "Item", 0x15: "Lang",
    0x16: "LocName", 0x17: "LocURI", 0x18: "Map", 0x19: "MapItem", 0x1A: "Meta",
    0x1B: "MsgID", 0x1C: "MsgRef", 0x1D: "NoResp", 0x1E: "NoResults", 0x1F: "Put",
    0x20: "Replace", 0x21: "RespURI", 0x22: "Results", 0x23: "Search", 0x24: "Sequence",
    0x25: "SessionID", 0x26: "SftDel", 0x27: "Source", 0x28: "SourceRef", 0x29: "Status",
    0x2A: "Sync", 0x2B: "SyncBody", 0x2C: "SyncHdr", 0x2D: "SyncML", 0x2E: "Target",
    0x2F: "TargetRef", 0x31: "VerDTD", 0x32: "VerProto", 0x33: "NumberOfChanges",
    0x34: "MoreData",
}  # fmt: skip
_SYNCML_12 = {
    **_SYNCML_11,
    0x35: "Field", 0x36: "Filter", 0x37: "Record", 0x38: "FilterType",
    0x39: "SourceParent", 0x3A: "TargetParent", 0x3B: "Move", 0x3C: "Correlator",
}  # fmt: skip

_METINF_11 = {
    0x05: "Anchor", 0x06: "EMI", 0x07: "Format", 0x08: "FreeID", 0x09: "FreeMem",
    0x0A: "Last", 0x0B: "Mark", 0x0C: "MaxMsgSize", 0x0D: "Mem", 0x0E: "MetInf",
    0x0F: "Next", 0x10: "NextNonce", 0x11: "SharedMem", 0x12: "Size", 0x13: "Type",
    0x14: "Version", 0x15: "MaxObjSize",
}  # fmt: skip
_METINF_12 = {**_METINF_11, 0x16: "FieldLevel"}

_DEVINF_11 = {
    0x05: "CTCap", 0x06: "CTType", 0x07: "DataStore", 0x08: "DataType", 0x09: "DevID",
    0x0A: "DevInf", 0x0B: "DevTyp", 0x0C: "DisplayName", 0x0D: "DSMem", 0x0E: "Ext",
    0x0F: "FwV", 0x10: "HwV", 0x11: "Man", 0x12: "MaxGUIDSize", 0x13: "MaxID",
    0x14: "MaxMem", 0x15: "Mod", 0x16: "OEM", 0x17: "ParamName", 0x18: "PropName",
    0x19: "Rx", 0x1A: "Rx-Pref", 0x1B: "SharedMem", 0x1C: "Size", 0x1D: "SourceRef",
    0x1E: "SwV", 0x1F: "SyncCap", 0x20: "SyncType", 0x21: "Tx", 0x22: "Tx-Pref",
    0x23: "ValEnum", 0x24: "VerCT", 0x25: "VerDTD", 0x26: "XNam", 0x27: "XVal",
    0x28: "UTC", 0x29: "SupportNumberOfChanges", 0x2A: "SupportLargeObjs",
}  # fmt: skip
_DEVINF_12 = {
    **{t: n for t, n in _DEVINF_11.items() if t != 0x1C},
    0x1C: "MaxSize", 0x2B: "Property", 0x2C: "PropParam", 0x2D: "MaxOccur",
    0x2E: "NoTruncate", 0x30: "Filter-Rx", 0x31: "FilterCap", 0x32: "FilterKeyword",
    0x33: "FieldLevel", 0x34: "SupportHierarchicalSync",
}  # fmt: skip

METINF_NS = "syncml:metinf"
DEVINF_NS = "syncml:devinf"

SYNCML11 = TokenTable(
    name="syncml11",
    public_id=0x0FD3,
    fpi="-//SYNCML//DTD SyncML 1.1//EN",
    system_id="http://www.syncml.org/docs/syncml_represent_v11_20020213.dtd",
    root="SyncML",
    whole_text_in=frozenset({"Data"}),
    tags={**page(0, _SYNCML_11), **page(1, _METINF_11)},
    namespaces={"SYNCML:SYNCML1.1": 0, METINF_NS: 1},
)
DEVINF11 = TokenTable(
    name="devinf11",
    public_id=0x0FD4,
    fpi="-//SYNCML//DTD DevInf 1.1//EN",
    system_id="http://www.syncml.org/docs/devinf_v11_20020215.dtd",
    root="DevInf",
    tags=page(0, _DEVINF_11),
    namespaces={DEVINF_NS: 0},
)
SYNCML12 = TokenTable(
    name="syncml12",
    public_id=0x1201,
    fpi="-//SYNCML//DTD SyncML 1.2//EN",
    system_id="http://www.openmobilealliance.org/tech/DTD/OMA-TS-SyncML_RepPro_DTD-V1_2.dtd",
    root="SyncML",
    whole_text_in=frozenset({"Data"}),
    tags={**page(0, _SYNCML_12), **page(1, _METINF_12)},
    namespaces={"SYNCML:SYNCML1.2": 0, METINF_NS: 1},
)
METINF12 = TokenTable(
    name="metinf12",
    public_id=0x1202,
    fpi="-//SYNCML//DTD MetInf 1.2//EN",
    system_id="http://www.openmobilealliance.org/tech/DTD/OMA-TS-SyncML_MetaInfo_DTD-V1_2.dtd",
    root="MetInf",
    tags=page(1, _METINF_12),
    namespaces={METINF_NS: 1},
)
DEVINF12 = TokenTable(
    name="devinf12",
    public_id=0x1203,
    fpi="-//SYNCML//DTD DevInf 1.2//EN",
    system_id="http://www.openmobilealliance.org/tech/DTD/OMA-SyncML-Device_Information-DTD-1.2.dtd",
    root="DevInf",
    tags=page(0, _DEVINF_12),
    namespaces={DEVINF_NS: 0},
)
