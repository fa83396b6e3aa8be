// QuantLib's MCEuropeanEngine on the contract of bench/bench_mc.c:
// S=K=100, r=5%, q=0, sigma=20%, T=1 (365 days, Actual365Fixed), one time
// step, antithetic variates, pseudo-random (Mersenne twister) numbers.
// QuantLib counts an antithetic pair as one sample, so PATHS/2 samples are
// asked for to simulate PATHS paths. Single-threaded (QuantLib's MC is).
//
// usage: mc_european [PATHS] [REPEATS]
#include <ql/quantlib.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>

using namespace QuantLib;

int main(int argc, char **argv) {
    unsigned long long paths = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 2000000ull;
    int repeats = argc > 2 ? std::atoi(argv[2]) : 3;
    Date today(2, January, 2024);
    Settings::instance().evaluationDate() = today;
    DayCounter dc = Actual365Fixed();
    Handle<Quote> spot(ext::make_shared<SimpleQuote>(100.0));
    Handle<YieldTermStructure> r(ext::make_shared<FlatForward>(today, 0.05, dc));
    Handle<YieldTermStructure> q(ext::make_shared<FlatForward>(today, 0.0, dc));
    Handle<BlackVolTermStructure> vol(ext::make_shared<BlackConstantVol>(today, NullCalendar(), 0.20, dc));
    auto process = ext::make_shared<BlackScholesMertonProcess>(spot, q, r, vol);
    auto payoff = ext::make_shared<PlainVanillaPayoff>(Option::Call, 100.0);
    auto exercise = ext::make_shared<EuropeanExercise>(today + 365);

    double best = 1e300, price = 0, err = 0;
    for (int i = 0; i < repeats; i++) {
        VanillaOption option(payoff, exercise); // fresh: no cached result
        option.setPricingEngine(MakeMCEuropeanEngine<PseudoRandom>(process)
                                    .withSteps(1)
                                    .withSamples(Size(paths / 2))
                                    .withAntitheticVariate()
                                    .withSeed(42));
        auto t0 = std::chrono::steady_clock::now();
        price = option.NPV();
        err = option.errorEstimate();
        double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (dt < best) best = dt;
    }
    std::printf("engine=quantlib threads=1 paths=%llu seconds=%.4f paths_per_second=%.4g\n",
                (paths / 2) * 2, best, double((paths / 2) * 2) / best);
    std::printf("engine=quantlib price=%.6f std_error=%.6g\n", price, err);
    return 0;
}
