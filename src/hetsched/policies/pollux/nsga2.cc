#include "hetsched/policies/pollux/nsga2.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <utility>
#include <vector>

#include "hetsched/util/units.h"

namespace hetsched::pollux_internal {
namespace {

constexpr double kDuplicateEps = 1e-24;  // pymoo's calc_crowding_distance: find_duplicates(F, 1e-24)

// Offspring equal to a member are dropped (pymoo's DefaultDuplicateElimination: distance below
// 1e-16, i.e. equal integer vectors).
// The set holds pointers to genomes that outlive it.
// FNV-1a over the entries in four interleaved lanes (independent multiplications, so a long
// genome hashes about four times as fast as one serial chain), folded together at the end. The
// sets are only probed, never iterated: the hash decides no result.
struct GenomeHash {
  size_t operator()(const Genome* x) const {
    constexpr uint64_t kPrime = 0x100000001b3ULL;
    uint64_t h[4] = {0xcbf29ce484222325ULL, 0x84222325cbf29ce4ULL, 0x9e3779b97f4a7c15ULL, 0xc2b2ae3d27d4eb4fULL};
    const int* v = x->data();
    const size_t n = x->size();
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
      for (size_t k = 0; k < 4; ++k) h[k] = (h[k] ^ static_cast<uint32_t>(v[i + k])) * kPrime;
    }
    for (; i < n; ++i) h[0] = (h[0] ^ static_cast<uint32_t>(v[i])) * kPrime;
    return static_cast<size_t>(((h[0] * kPrime ^ h[1]) * kPrime ^ h[2]) * kPrime ^ h[3]);
  }
};
// Open addressing with linear probing over a power-of-two table: no node to allocate per insert
// (a node-based set allocated one per offspring, a tenth of a run's time with its hashing).
class GenomeSet {
 public:
  void reserve(size_t n) {
    size_t cap = 16;
    while (cap < 2 * n) cap *= 2;
    slots_.assign(cap, nullptr);
    size_ = 0;
  }
  // False when an equal genome is already in.
  bool insert(const Genome* x) {
    if (2 * (size_ + 1) > slots_.size()) Grow();
    const size_t mask = slots_.size() - 1;
    for (size_t i = GenomeHash{}(x) & mask;; i = (i + 1) & mask) {
      if (slots_[i] == nullptr) {
        slots_[i] = x;
        ++size_;
        return true;
      }
      if (*slots_[i] == *x) return false;
    }
  }

 private:
  void Grow() {
    std::vector<const Genome*> old = std::move(slots_);
    reserve(std::max<size_t>(old.size(), 8));
    for (const Genome* g : old) {
      if (g != nullptr) insert(g);
    }
  }
  std::vector<const Genome*> slots_;
  size_t size_ = 0;
};

struct Individual {
  Genome x;
  std::vector<double> f;
  int rank = 0;
  double crowding = 0;
};

// Dominator.get_relation: 1 when a dominates b, -1 when b dominates a, else 0.
int Relation(const std::vector<double>& a, const std::vector<double>& b) {
  int val = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] < b[i]) {
      if (val == -1) return 0;
      val = 1;
    } else if (b[i] < a[i]) {
      if (val == 1) return 0;
      val = -1;
    }
  }
  return val;
}

bool NearlyEqual(const std::vector<double>& a, const std::vector<double>& b) {
  double d2 = 0;
  for (size_t i = 0; i < a.size(); ++i) d2 += (a[i] - b[i]) * (a[i] - b[i]);
  return std::sqrt(d2) < kDuplicateEps;
}

using ObjectiveRefs = std::vector<const std::vector<double>*>;

// pagmo's order of objective values (pagmo/detail/custom_comparisons.hpp, less_than_f): NaN
// above every number, equal to itself.
bool Below(double x, double y) {
  if (std::isnan(x)) return false;
  if (std::isnan(y)) return true;
  return x < y;
}
// pagmo's pareto_dominance (minimised): `a` is nowhere above `b` and somewhere below.
bool Dominates(const std::vector<double>& a, const std::vector<double>& b) {
  bool below = false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (Below(b[i], a[i])) return false;
    if (Below(a[i], b[i])) below = true;
  }
  return below;
}

std::vector<std::vector<size_t>> Fronts(const ObjectiveRefs& f) {
  if (f.empty()) return {};
  if (f.size() == 1) return {{0}};
  std::vector<std::vector<size_t>> out;
  if (f[0]->size() == 2) {
    // Two objectives: a sweep in O(n log n) (Jensen, IEEE TEC 2003) instead of pagmo's O(n^2)
    // pairwise comparisons (two thirds of a Pollux run's time). In order of (f0, f1), a point is
    // dominated by a front when the front's last point has a smaller f1, or the same f1 and a
    // smaller f0; fronts dominate in order, so the first that does not is found by bisection.
    std::vector<size_t> order(f.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      if ((*f[a])[0] != (*f[b])[0]) return (*f[a])[0] < (*f[b])[0];
      if ((*f[a])[1] != (*f[b])[1]) return (*f[a])[1] < (*f[b])[1];
      return a < b;
    });
    std::vector<size_t> last;  // each front's last point
    for (size_t i : order) {
      auto dominated_by = [&](size_t k) {
        const std::vector<double>& q = *f[last[k]];
        const std::vector<double>& p = *f[i];
        return q[1] < p[1] || (q[1] == p[1] && q[0] < p[0]);
      };
      size_t lo = 0, hi = last.size();
      while (lo < hi) {
        const size_t mid = (lo + hi) / 2;
        if (dominated_by(mid)) lo = mid + 1; else hi = mid;
      }
      if (lo == last.size()) {
        last.push_back(i);
        out.emplace_back();
      } else {
        last[lo] = i;
      }
      out[lo].push_back(i);
    }
  } else {
    // More objectives: Deb's fast non-dominated sorting (Deb et al., IEEE TEC 2002), as pagmo's
    // fast_non_dominated_sorting, with its dominance (pareto_dominance). The fronts are a
    // function of the dominance alone, and each is sorted below, so any exact sort gives the same.
    // (pagmo itself is not linked: loading libpagmo runs static initialisers of ~70 ms, more
    // than a whole 2,000-job Tiresias run.)
    const size_t n = f.size();
    std::vector<std::vector<size_t>> dominates(n);
    std::vector<size_t> dominated_by(n, 0);
    for (size_t i = 0; i < n; ++i) {
      for (size_t j = i + 1; j < n; ++j) {
        if (Dominates(*f[i], *f[j])) {
          dominates[i].push_back(j);
          ++dominated_by[j];
        } else if (Dominates(*f[j], *f[i])) {
          dominates[j].push_back(i);
          ++dominated_by[i];
        }
      }
    }
    std::vector<size_t> current;
    for (size_t i = 0; i < n; ++i) {
      if (dominated_by[i] == 0) current.push_back(i);
    }
    while (!current.empty()) {
      out.push_back(current);
      std::vector<size_t> next;
      for (size_t i : current) {
        for (size_t j : dominates[i]) {
          if (--dominated_by[j] == 0) next.push_back(j);
        }
      }
      current = std::move(next);
    }
  }
  for (auto& front : out) std::sort(front.begin(), front.end());
  return out;
}

std::vector<double> Crowding(const ObjectiveRefs& f) {
  const size_t n = f.size();
  if (n <= 2) return std::vector<double>(n, kInf);
  const size_t n_obj = f[0]->size();
  std::vector<size_t> unique;
  for (size_t i = 0; i < n; ++i) {
    bool dup = false;
    for (size_t j = 0; j < i && !dup; ++j) dup = NearlyEqual(*f[i], *f[j]);
    if (!dup) unique.push_back(i);
  }
  std::vector<double> out(n, 0.0);
  std::vector<double> cd(unique.size(), 0.0);
  const size_t m = unique.size();
  for (size_t k = 0; k < n_obj; ++k) {
    std::vector<size_t> order(m);  // positions in `unique`, by this objective (stable)
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return (*f[unique[a]])[k] < (*f[unique[b]])[k]; });
    const double norm = (*f[unique[order.back()]])[k] - (*f[unique[order.front()]])[k];
    if (!(norm > 0)) continue;  // no spread: NaN in pymoo, counted 0
    for (size_t p = 0; p < m; ++p) {
      const double v = (*f[unique[order[p]]])[k];
      const double last = p == 0 ? kInf : (v - (*f[unique[order[p - 1]]])[k]) / norm;
      const double next = p + 1 == m ? kInf : ((*f[unique[order[p + 1]]])[k] - v) / norm;
      cd[order[p]] += last + next;
    }
  }
  for (size_t i = 0; i < m; ++i) out[unique[i]] = cd[i] / static_cast<double>(n_obj);
  return out;
}

// RankAndCrowdingSurvival: the best `n_survive` of `pop` by rank, the front that does not fit by
// descending crowding distance, its ties in a random order. Sets rank and crowding.
std::vector<Individual> Survive(std::vector<Individual> pop, size_t n_survive, Rng& rng) {
  ObjectiveRefs f;
  f.reserve(pop.size());
  for (const Individual& ind : pop) f.push_back(&ind.f);
  std::vector<Individual> survivors;
  survivors.reserve(n_survive);
  const std::vector<std::vector<size_t>> fronts = Fronts(f);
  ObjectiveRefs front_f;
  for (size_t k = 0; k < fronts.size() && survivors.size() < n_survive; ++k) {
    const std::vector<size_t>& front = fronts[k];
    front_f.clear();
    for (size_t i : front) front_f.push_back(&pop[i].f);
    const std::vector<double> crowding = Crowding(front_f);
    for (size_t j = 0; j < front.size(); ++j) {
      pop[front[j]].rank = static_cast<int>(k);
      pop[front[j]].crowding = crowding[j];
    }
    std::vector<size_t> order(front.size());
    std::iota(order.begin(), order.end(), 0);
    if (survivors.size() + front.size() > n_survive) {
      rng.Shuffle(order);
      std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return crowding[a] > crowding[b]; });
      order.resize(n_survive - survivors.size());
    }
    for (size_t j : order) survivors.push_back(std::move(pop[front[j]]));
  }
  return survivors;
}

// binary_tournament: the dominating one, else the larger crowding distance, else at random.
size_t Tournament(const std::vector<Individual>& pop, size_t a, size_t b, Rng& rng) {
  const int rel = Relation(pop[a].f, pop[b].f);
  if (rel == 1) return a;
  if (rel == -1) return b;
  if (pop[a].crowding > pop[b].crowding) return a;
  if (pop[a].crowding < pop[b].crowding) return b;
  return rng.Below(2) == 0 ? a : b;
}

// Mating._do: ceil(n / 2) matings of tournament winners, crossover or copies, then mutation.
std::vector<Genome> Mate(const std::vector<Individual>& pop, size_t n, const Nsga2Options& options,
                         const Nsga2Operators& ops, Rng& rng) {
  const size_t matings = (n + 1) / 2;
  const size_t draws = matings * 2 * 2;  // two parents, each of a tournament of two
  std::vector<size_t> picks;
  picks.reserve(draws + pop.size());
  while (picks.size() < draws) {  // random_permuations: whole permutations, concatenated
    std::vector<size_t> perm(pop.size());
    std::iota(perm.begin(), perm.end(), 0);
    rng.Shuffle(perm);
    picks.insert(picks.end(), perm.begin(), perm.end());
  }
  std::vector<Genome> first(matings), second(matings);
  for (size_t m = 0; m < matings; ++m) {
    const size_t p0 = Tournament(pop, picks[4 * m], picks[4 * m + 1], rng);
    const size_t p1 = Tournament(pop, picks[4 * m + 2], picks[4 * m + 3], rng);
    first[m] = pop[p0].x;
    second[m] = pop[p1].x;
    if (rng.Uniform() < options.crossover_prob) ops.crossover(first[m], second[m], rng);
  }
  std::vector<Genome> children = std::move(first);  // all first children, then all second ones
  children.insert(children.end(), std::make_move_iterator(second.begin()), std::make_move_iterator(second.end()));
  for (Genome& c : children) ops.mutate(c, rng);
  return children;
}

std::vector<Individual> Offspring(const std::vector<Individual>& pop, const Nsga2Options& options,
                                  const Nsga2Operators& ops, Rng& rng) {
  const size_t want = static_cast<size_t>(options.pop_size);
  GenomeSet known;
  known.reserve(2 * (pop.size() + want));
  for (const Individual& ind : pop) known.insert(&ind.x);
  std::vector<Individual> off;
  off.reserve(want);  // the set points into it: no reallocation
  for (int infills = 0; off.size() < want && infills <= options.max_infills; ++infills) {
    std::vector<Genome> children = Mate(pop, want - off.size(), options, ops, rng);
    for (Genome& c : children) {
      ops.repair(c, rng);
      if (off.size() >= want) break;  // the surplus is cut
      off.push_back(Individual{std::move(c), {}, 0, 0});
      if (!known.insert(&off.back().x)) off.pop_back();
    }
  }
  for (Individual& ind : off) ind.f = ops.evaluate(ind.x);
  return off;
}

}  // namespace

std::vector<std::vector<size_t>> NonDominatedFronts(const std::vector<std::vector<double>>& f) {
  ObjectiveRefs refs;
  for (const std::vector<double>& v : f) refs.push_back(&v);
  return Fronts(refs);
}

std::vector<double> CrowdingDistance(const std::vector<std::vector<double>>& f) {
  ObjectiveRefs refs;
  for (const std::vector<double>& v : f) refs.push_back(&v);
  return Crowding(refs);
}

Nsga2Front RunNsga2(const std::vector<Genome>& sampling, const Nsga2Options& options, const Nsga2Operators& ops,
                    Rng& rng) {
  // Initialization: the sampling repaired, without duplicates, evaluated and ranked.
  std::vector<Individual> pop;
  pop.reserve(sampling.size());
  GenomeSet seen;
  for (Genome x : sampling) {
    ops.repair(x, rng);
    pop.push_back(Individual{std::move(x), {}, 0, 0});
    if (!seen.insert(&pop.back().x)) pop.pop_back();
  }
  for (Individual& ind : pop) ind.f = ops.evaluate(ind.x);
  const size_t sampled = pop.size();
  pop = Survive(std::move(pop), sampled, rng);
  for (int gen = 1; gen < options.generations; ++gen) {
    std::vector<Individual> off = Offspring(pop, options, ops, rng);
    if (off.empty()) break;  // pymoo's forced termination: no new offspring
    pop.insert(pop.end(), std::make_move_iterator(off.begin()), std::make_move_iterator(off.end()));
    pop = Survive(std::move(pop), static_cast<size_t>(options.pop_size), rng);
  }
  Nsga2Front front;
  for (Individual& ind : pop) {
    if (ind.rank != 0) continue;
    front.x.push_back(std::move(ind.x));
    front.f.push_back(std::move(ind.f));
  }
  return front;
}

}  // namespace hetsched::pollux_internal
