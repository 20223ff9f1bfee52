// One TCP bulk transfer across one point-to-point link in ns-3, the scenario of
// wwanlab.sim.bulk: sender and receiver, a drop-tail device queue, a rate, a one-way
// delay, random packet loss at the receiver's interface (data direction only).
// Prints one JSON object: what the transfer did and what the simulator did to run it.
//
// The sender runs the algorithm wwanlab's TcpConfig "sack" runs, as RFC 5681, 6675 and
// 6298 state it. Where ns-3 3.37 departs from them, this program puts it back:
// - RfcNewReno halves FlightSize, not ns-3's pipe, and does not grow cwnd on the ACK
//   that ends recovery;
// - KarnBackoff keeps a timeout's backed-off RTO until the next RTT sample.
// (docs/performance.md, "Simulator against ns-3", says what each changes.)
//
// Built by benchmarks/bench_vs_ns3.py with g++ and pkg-config against Debian's libns3-dev.

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>

using namespace ns3;

namespace
{
uint64_t g_recoveries = 0;
uint64_t g_timeouts = 0;

/**
 * RFC 6298 5.5 doubles the RTO at a timeout, and the RTO falls back only with a new RTT
 * sample (RFC 6298 section 5's closing note; Karn's algorithm). ns-3 3.37 recomputes the
 * RTO from its estimator at every new ACK, so after a timeout whose retransmissions
 * Karn's rule keeps out of the estimator, the RTO falls straight back to what timed out.
 * On a line slower than that RTO per packet (9.6 kbit/s: 1.56 s for 1,502 octets against
 * the 1 s floor) every later segment then times out too. The sender's MinRto holds the
 * backed-off value from each timeout to the next RTT sample.
 */
struct KarnBackoff
{
    static Ptr<TcpSocketBase> socket; // the sender's
    static Time minRto;               // configured
    static Time rto;                  // the sender's current RTO (its "RTO" trace)

    static void Traced(Time, Time value)
    {
        rto = value;
    }

    static void TimedOut()
    {
        if (socket)
        {
            socket->SetMinRto(rto); // ReTxTimeout has doubled it already
        }
    }

    static void Sampled()
    {
        if (socket)
        {
            socket->SetMinRto(minRto);
        }
    }
};

Ptr<TcpSocketBase> KarnBackoff::socket;
Time KarnBackoff::minRto;
Time KarnBackoff::rto;

/** ns-3's mean-deviation estimator (RFC 6298 2), telling KarnBackoff of each sample. */
class SampledRtt : public RttMeanDeviation
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("SampledRtt")
                                .SetParent<RttMeanDeviation>()
                                .AddConstructor<SampledRtt>();
        return tid;
    }

    void Measurement(Time t) override
    {
        KarnBackoff::Sampled(); // before the socket computes the RTO from it
        RttMeanDeviation::Measurement(t);
    }

    Ptr<RttEstimator> Copy() const override
    {
        return CopyObject<SampledRtt>(this);
    }
};

/**
 * NewReno as RFC 5681 and RFC 6675 give it. ns-3's TcpNewReno halves the bytes in
 * flight as its SACK scoreboard counts them (RFC 6675's pipe, less the SACKed and lost
 * octets), which at the third duplicate ACK is about four segments below FlightSize;
 * and after setting cwnd = ssthresh on the ACK that ends recovery it grows cwnd on that
 * same ACK. Counts recoveries and timeouts for the report.
 */
class RfcNewReno : public TcpNewReno
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid =
            TypeId("RfcNewReno").SetParent<TcpNewReno>().AddConstructor<RfcNewReno>();
        return tid;
    }

    // RFC 5681 eq. (4), RFC 6675 5 step (4.2): ssthresh = max(FlightSize / 2, 2 SMSS).
    uint32_t GetSsThresh(Ptr<const TcpSocketState> tcb, uint32_t) override
    {
        uint32_t flightSize = tcb->m_highTxMark.Get() - tcb->m_lastAckedSeq;
        return std::max(flightSize / 2, 2 * tcb->m_segmentSize);
    }

    // RFC 5681 3.2 step 6: the ACK that ends recovery sets cwnd to ssthresh, no more.
    void CwndEvent(Ptr<TcpSocketState>, const TcpSocketState::TcpCAEvent_t event) override
    {
        if (event == TcpSocketState::CA_EVENT_COMPLETE_CWR) // IncreaseWindow comes next
        {
            m_recoveryEnded = true;
        }
    }

    void IncreaseWindow(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked) override
    {
        if (m_recoveryEnded)
        {
            m_recoveryEnded = false;
            return;
        }
        TcpNewReno::IncreaseWindow(tcb, segmentsAcked);
    }

    void CongestionStateSet(Ptr<TcpSocketState>,
                            const TcpSocketState::TcpCongState_t state) override
    {
        if (state == TcpSocketState::CA_RECOVERY)
        {
            ++g_recoveries;
        }
        else if (state == TcpSocketState::CA_LOSS) // each timeout
        {
            ++g_timeouts;
            KarnBackoff::TimedOut();
        }
    }

    Ptr<TcpCongestionOps> Fork() override
    {
        return CopyObject<RfcNewReno>(this);
    }

  private:
    bool m_recoveryEnded{false};
};

uint64_t g_size = 0;
uint64_t g_received = 0;
double g_done = -1.0;
uint64_t g_linkPackets = 0;

void
Received(Ptr<const Packet> packet, const Address&)
{
    g_received += packet->GetSize();
    if (g_done < 0 && g_received >= g_size)
    {
        g_done = Simulator::Now().GetSeconds();
    }
}

void
Offered(Ptr<const Packet>)
{
    ++g_linkPackets;
}

void
WatchSender(Ptr<Application> source)
{
    Ptr<Socket> socket = DynamicCast<BulkSendApplication>(source)->GetSocket();
    KarnBackoff::socket = DynamicCast<TcpSocketBase>(socket);
    KarnBackoff::socket->TraceConnectWithoutContext("RTO", MakeCallback(&KarnBackoff::Traced));
}
} // namespace

int
main(int argc, char* argv[])
{
    auto wall0 = std::chrono::steady_clock::now();
    std::clock_t cpu0 = std::clock();

    std::string rate = "10Mbps";
    double delay = 0.05;
    double loss = 0.01;
    uint32_t queue = 100;
    uint32_t mss = 1460;
    double minRto = 1.0;
    uint32_t seed = 1;
    uint32_t initialCwnd = 3;
    uint32_t rcvBuf = 65535;
    uint32_t sndBuf = 65535; // more than rcvbuf crashes ns-3 3.37 (docs/performance.md)
    std::string pcap;
    CommandLine cmd;
    cmd.AddValue("size", "octets to send", g_size);
    cmd.AddValue("rate", "link rate (ns-3 DataRate string)", rate);
    cmd.AddValue("delay", "one-way delay, s", delay);
    cmd.AddValue("loss", "packet loss probability at the receiver", loss);
    cmd.AddValue("queue", "device queue limit, packets", queue);
    cmd.AddValue("mss", "TCP segment size", mss);
    cmd.AddValue("minrto", "minimum RTO, s", minRto);
    cmd.AddValue("seed", "run number of the random streams", seed);
    cmd.AddValue("iw", "initial window, segments", initialCwnd);
    cmd.AddValue("rcvbuf", "receive buffer, octets", rcvBuf);
    cmd.AddValue("sndbuf", "send buffer, octets", sndBuf);
    cmd.AddValue("pcap", "write PREFIX-0-0.pcap and PREFIX-1-0.pcap (each device)", pcap);
    cmd.Parse(argc, argv);
    RngSeedManager::SetRun(seed);

    KarnBackoff::minRto = Seconds(minRto);

    // NewReno congestion control with SACK loss recovery (RFC 6675's cwnd = ssthresh
    // on entry: the classic recovery, not PRR); no timestamps, no window scaling,
    // Nagle on, delayed ACK every second segment or 200 ms, as wwanlab's TcpConfig.
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(RfcNewReno::GetTypeId()));
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                       TypeIdValue(TcpClassicRecovery::GetTypeId()));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(mss));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(initialCwnd));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(2));
    Config::SetDefault("ns3::TcpSocket::DelAckTimeout", TimeValue(Seconds(0.2)));
    Config::SetDefault("ns3::TcpSocket::TcpNoDelay", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(rcvBuf));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(sndBuf));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::WindowScaling", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(Seconds(minRto)));
    Config::SetDefault("ns3::TcpSocketBase::ClockGranularity", TimeValue(MilliSeconds(1)));

    NodeContainer nodes;
    nodes.Create(2);
    PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", StringValue(rate));
    p2p.SetChannelAttribute("Delay", TimeValue(Seconds(delay)));
    p2p.SetQueue("ns3::DropTailQueue<Packet>",
                 "MaxSize",
                 QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, queue)));
    NetDeviceContainer devices = p2p.Install(nodes);

    Ptr<RateErrorModel> errors = CreateObject<RateErrorModel>();
    errors->SetUnit(RateErrorModel::ERROR_UNIT_PACKET);
    errors->SetRate(loss);
    devices.Get(1)->SetAttribute("ReceiveErrorModel", PointerValue(errors));

    InternetStackHelper stack;
    stack.Install(nodes);
    // the sender's RTT estimator reports its samples to KarnBackoff
    nodes.Get(0)->GetObject<TcpL4Protocol>()->SetAttribute(
        "RttEstimatorType",
        TypeIdValue(SampledRtt::GetTypeId()));
    Ipv4AddressHelper addresses;
    addresses.SetBase("10.1.0.0", "255.255.255.0");
    Ipv4InterfaceContainer interfaces = addresses.Assign(devices);
    TrafficControlHelper tc;
    tc.Uninstall(devices); // the device queue alone, as wwanlab's drop-tail queue

    uint16_t port = 5001;
    PacketSinkHelper sink("ns3::TcpSocketFactory",
                          InetSocketAddress(Ipv4Address::GetAny(), port));
    ApplicationContainer sinkApp = sink.Install(nodes.Get(1));
    sinkApp.Start(Seconds(0.0));
    BulkSendHelper source("ns3::TcpSocketFactory",
                          InetSocketAddress(interfaces.GetAddress(1), port));
    source.SetAttribute("MaxBytes", UintegerValue(g_size));
    source.SetAttribute("SendSize", UintegerValue(mss));
    ApplicationContainer sourceApp = source.Install(nodes.Get(0));
    sourceApp.Start(Seconds(0.0));

    sinkApp.Get(0)->TraceConnectWithoutContext("Rx", MakeCallback(&Received));
    for (uint32_t i = 0; i < devices.GetN(); ++i)
    {
        devices.Get(i)->TraceConnectWithoutContext("MacTx", MakeCallback(&Offered));
    }

    // the application opens its socket at time 0
    Simulator::Schedule(MicroSeconds(1), &WatchSender, sourceApp.Get(0));
    if (!pcap.empty())
    {
        p2p.EnablePcapAll(pcap);
    }

    Simulator::Run();
    uint64_t events = Simulator::GetEventCount();
    Simulator::Destroy();

    double cpu = double(std::clock() - cpu0) / CLOCKS_PER_SEC;
    double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
    std::printf("{\"size\": %llu, \"received\": %llu, \"complete\": %s, \"seconds\": %.9f, "
                "\"recoveries\": %llu, \"timeouts\": %llu, "
                "\"link_packets\": %llu, \"events\": %llu, \"wall_s\": %.6f, \"cpu_s\": %.6f}\n",
                (unsigned long long)g_size,
                (unsigned long long)g_received,
                g_received >= g_size && g_done >= 0 ? "true" : "false",
                g_done,
                (unsigned long long)g_recoveries,
                (unsigned long long)g_timeouts,
                (unsigned long long)g_linkPackets,
                (unsigned long long)events,
                wall,
                cpu);
    return 0;
}
