// One TCP bulk transfer across one point-to-point link in ns-3, the scenario of
// wwanlab.sim.bulk: sender and receiver, a drop-tail device queue, a rate, a one-way
// delay, random packet loss at the receiver's interface (data direction only).
// Prints one JSON object: what the transfer did and what the simulator did to run it.
//
// Built by benchmarks/bench_vs_ns3.py with g++ and pkg-config against Debian's libns3-dev.

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <chrono>
#include <cstdio>
#include <ctime>

using namespace ns3;

namespace
{
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
    uint32_t sndBuf = 1 << 20;
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
    cmd.Parse(argc, argv);
    RngSeedManager::SetRun(seed);

    // NewReno congestion control with SACK loss recovery (RFC 6675's cwnd = ssthresh
    // on entry: the classic recovery, not PRR); no timestamps, no window scaling,
    // Nagle on, delayed ACK every second segment or 200 ms, as wwanlab's TcpConfig.
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(TcpNewReno::GetTypeId()));
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

    Simulator::Run();
    uint64_t events = Simulator::GetEventCount();
    Simulator::Destroy();

    double cpu = double(std::clock() - cpu0) / CLOCKS_PER_SEC;
    double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
    std::printf("{\"size\": %llu, \"received\": %llu, \"complete\": %s, \"seconds\": %.9f, "
                "\"link_packets\": %llu, \"events\": %llu, \"wall_s\": %.6f, \"cpu_s\": %.6f}\n",
                (unsigned long long)g_size,
                (unsigned long long)g_received,
                g_received >= g_size && g_done >= 0 ? "true" : "false",
                g_done,
                (unsigned long long)g_linkPackets,
                (unsigned long long)events,
                wall,
                cpu);
    return 0;
}
