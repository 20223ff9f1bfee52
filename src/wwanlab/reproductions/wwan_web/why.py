"""Why each claim of paper 003 misses on our models, in one sentence per claim: the
mechanism the ablation's runs (``ablation``) show beside it on the page.

The sentences name mechanisms, not numbers: the numbers are in the claim's own row and
in its runs (all on, then each phenomenon off alone), so a page never quotes a number
its run did not measure.
"""

BUSY_LINK = (
    "the default browser keeps two connections per server busy on the main and one or two "
    "image servers, and with our radio's round trips (0.6 s plus a TBF set-up of at most "
    "0.47 s after an idle 0.5 s, plus rare 4-5 s outages) one connection's stop-and-go gap "
    "is filled by the others' data, so the link idles far less than the paper's; neither "
    "the host distribution, nor the TBF, nor the outages alone brings it near the paper's "
    "(runs)"
)

MECHANISMS: dict[str, str] = {
    "throughput": "The FTP parts hold, the pages move faster than the paper's: " + BUSY_LINK + ".",
    "idle": "Figure 4's 'other under-utilization' is the link idle outside DNS and "
    "handshakes: " + BUSY_LINK + ".",
    "compression": "Where our link is the bottleneck most of the time, removing bytes "
    "shortens a download almost in proportion, while on the paper's link, idle 35-55% of "
    "the time, compression saved only the transfer share; the miss is Yahoo's time part "
    "alone, and the runs with the TBF or the outages off reach the range.",
    "pipelining": "Pipelining gains what the stop-and-go GETs leave idle, and "
    + BUSY_LINK
    + ": there is little idle time left for pipelining to reclaim.",
    "connections": "More connections gain what the stop-and-go GETs leave idle, and "
    + BUSY_LINK
    + "; beyond that, extra connections' first flights only add to the queue.",
    "dns": "A DNS lookup costs a radio round trip only while no other connection is "
    "moving data; " + BUSY_LINK + ", so boosting saves less or more depending on which "
    "lookups fall on the critical path of the page's few servers.",
    "transport": "TCP-WWAN fixes slow start on a new connection and spurious timeouts "
    "after stalls and queueing; on our link the persistent connections are past slow start "
    "after their first objects and stalls are rare (assumed 6 per hour each of stalls "
    "and reselections), so it has little to fix, while UDP-GPRS avoids TCP's handshakes and "
    "slow-start rounds, each of which on our radio also pays uplink access and a TBF "
    "set-up: with those off, its gain falls (runs).",
    "dual": "Parse-and-push fills idle time and our link has little; CHK + delta is "
    "judged on a revisit with the browser cache warm, which already serves every unchanged "
    "static object (the cache-off run shows what the technique gains without it), so what "
    "is left to save, the dynamic HTML's delta and the aliases, depends on the revisit "
    "model's shares of edited, replaced and aliased objects, which the paper does not give.",
    "all": "Client-reconf. combines compression and UDP-GPRS, each of which saves more on "
    "our busy link than on the paper's idle one, so together they overshoot Table 9.",
    "mismatch": "The web download's degradation is smaller on our GPRS link than on the "
    "paper's because " + BUSY_LINK + ".",
}
