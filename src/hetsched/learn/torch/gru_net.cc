// The LibTorch side of GruForecaster (learn/backend.h): the GRU network, its training with
// early stopping on a validation split, and one-step predictions.
#include <cmath>
#include <limits>
#include <numeric>

#include "hetsched/learn/backend.h"
#include "hetsched/learn/torch/module_archive.h"
#include "hetsched/learn/torch/torch_backend.h"
#include "hetsched/learn/torch/torch_runtime.h"
#include "hetsched/util/rng.h"

namespace hetsched::learn {
namespace {

struct GruNetImpl : torch::nn::Module {
  GruNetImpl(int hidden, int layers)
      : gru(register_module("gru", torch::nn::GRU(torch::nn::GRUOptions(1, hidden).num_layers(layers).batch_first(true)))),
        head(register_module("head", torch::nn::Linear(hidden, 1))) {}
  // x: [batch, window, 1] -> [batch]
  torch::Tensor forward(const torch::Tensor& x) {
    auto out = std::get<0>(gru->forward(x));
    return head->forward(out.select(1, out.size(1) - 1)).squeeze(1);
  }
  torch::nn::GRU gru;
  torch::nn::Linear head;
};
TORCH_MODULE(GruNet);

class TorchGruNet final : public GruNetBackend {
 public:
  explicit TorchGruNet(const GruForecasterConfig& config) { m_.config = config; }

  // REQUIRES (checked by GruForecaster::Fit): a valid config, at least window + 2 finite values
  // and one training window after the validation split.
  Status Fit(std::span<const double> series) override {
    Model& m = m_;
    const int w = m.config.window;
    const double n = static_cast<double>(series.size());
    m.mean = std::accumulate(series.begin(), series.end(), 0.0) / n;
    double var = 0;
    for (double v : series) var += (v - m.mean) * (v - m.mean);
    m.scale = std::sqrt(var / n);
    if (!(m.scale > 1e-12)) m.scale = 1;  // a constant series: predict the constant
    m.Build();
    const torch::Tensor x = m.Windows(series);
    const auto count = x.size(0);
    auto y = torch::empty({count}, torch::kFloat64);
    for (int64_t i = 0; i < count; ++i) y[i] = (series[static_cast<size_t>(i + w)] - m.mean) / m.scale;

    // Windows are in time order: the last ones validate (no look-ahead into the training part).
    const auto val_count = static_cast<int64_t>(std::floor(static_cast<double>(count) * m.config.validation_fraction));
    const int64_t train_count = count - val_count;
    const torch::Tensor x_val = x.slice(0, train_count);
    const torch::Tensor y_val = y.slice(0, train_count);

    torch::optim::Adam optimizer(m.net->parameters(), torch::optim::AdamOptions(m.config.learning_rate));
    Rng rng(m.config.seed);
    std::vector<int64_t> order(static_cast<size_t>(train_count));
    std::iota(order.begin(), order.end(), 0);
    m.loss_history.clear();
    m.validation_history.clear();
    m.best_epoch = -1;
    std::vector<torch::Tensor> best;
    double best_val = std::numeric_limits<double>::infinity();
    for (int epoch = 0; epoch < m.config.epochs; ++epoch) {
      m.net->train();
      rng.Shuffle(order);
      double total = 0;
      for (int64_t start = 0; start < train_count; start += m.config.batch) {
        const int64_t end = std::min<int64_t>(train_count, start + m.config.batch);
        auto idx = torch::from_blob(order.data() + start, {end - start}, torch::kInt64).clone();
        optimizer.zero_grad();
        auto loss = torch::mse_loss(m.net->forward(x.index_select(0, idx)), y.index_select(0, idx));
        loss.backward();
        optimizer.step();
        total += loss.item<double>() * static_cast<double>(end - start);
      }
      m.loss_history.push_back(total / static_cast<double>(train_count));
      if (val_count > 0) {
        torch::NoGradGuard no_grad;
        m.net->eval();
        const double val = torch::mse_loss(m.net->forward(x_val), y_val).item<double>();
        m.validation_history.push_back(val);
        if (val < best_val) {
          best_val = val;
          m.best_epoch = epoch;
          best.clear();
          for (const auto& p : m.net->parameters()) best.push_back(p.detach().clone());
        }
      }
    }
    if (!best.empty()) {
      torch::NoGradGuard no_grad;
      auto params = m.net->parameters();
      for (size_t i = 0; i < params.size(); ++i) params[i].copy_(best[i]);
    } else {
      m.best_epoch = m.config.epochs - 1;
    }
    m.net->eval();
    m.trained = true;
    return Status::Ok();
  }

  Status Restore(double mean, double scale, const std::string& weights, const std::string& path) override {
    Model& m = m_;
    m.mean = mean;
    m.scale = scale;
    m.Build();
    HETSCHED_RETURN_IF_ERROR(ModuleFromBytes(*m.net, weights, path));
    m.net->eval();
    m.trained = true;
    return Status::Ok();
  }

  std::vector<double> OneStepPredictions(std::span<const double> series) const override {
    const Model& m = m_;
    std::vector<double> out(series.size(), std::numeric_limits<double>::quiet_NaN());
    if (!m.trained || series.size() <= static_cast<size_t>(m.config.window)) return out;
    ConfigureTorchThreads(m.config.threads);
    torch::NoGradGuard no_grad;
    const torch::Tensor pred = m.net->forward(m.Windows(series)).contiguous();
    auto acc = pred.accessor<double, 1>();
    for (int64_t i = 0; i < pred.size(0); ++i) out[static_cast<size_t>(i + m.config.window)] = acc[i] * m.scale + m.mean;
    return out;
  }

  double mean() const override { return m_.mean; }
  double scale() const override { return m_.scale; }
  const std::vector<double>& loss_history() const override { return m_.loss_history; }
  const std::vector<double>& validation_history() const override { return m_.validation_history; }
  int best_epoch() const override { return m_.best_epoch; }
  Result<std::string> WeightsToBytes(const std::string& path) const override { return ModuleToBytes(*m_.net, path); }

 private:
  struct Model {
    GruForecasterConfig config;
    double mean = 0;
    double scale = 1;
    bool trained = false;
    std::vector<double> loss_history;
    std::vector<double> validation_history;
    int best_epoch = -1;
    mutable GruNet net{nullptr};  // forward() is not const in LibTorch

    void Build() {
      SeedTorch(config.seed);
      ConfigureTorchThreads(config.threads);
      net = GruNet(config.hidden, config.layers);
      net->to(torch::kFloat64);
    }
    // Standardised windows ending before each target index t in [window, n).
    torch::Tensor Windows(std::span<const double> series) const {
      const int w = config.window;
      const auto count = static_cast<int64_t>(series.size()) - w;
      auto x = torch::empty({std::max<int64_t>(count, 0), w, 1}, torch::kFloat64);
      auto acc = x.accessor<double, 3>();
      for (int64_t i = 0; i < count; ++i) {
        for (int k = 0; k < w; ++k) acc[i][k][0] = (series[static_cast<size_t>(i + k)] - mean) / scale;
      }
      return x;
    }
  };

  Model m_;
};

}  // namespace

std::unique_ptr<GruNetBackend> NewTorchGruNet(const GruForecasterConfig& config) {
  return std::make_unique<TorchGruNet>(config);
}

}  // namespace hetsched::learn
