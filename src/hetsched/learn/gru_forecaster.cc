#include "hetsched/learn/gru_forecaster.h"

#include <cmath>
#include <fmt/format.h>
#include <limits>
#include <numeric>

#include "hetsched/learn/model_file.h"
#include "hetsched/learn/module_archive_internal.h"
#include "hetsched/learn/torch_runtime.h"
#include "hetsched/util/file_io.h"
#include "hetsched/util/rng.h"

namespace hetsched::learn {
namespace {

constexpr const char* kMagic = "hetsched-gru-forecaster v1";

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

}  // namespace

Status GruForecasterConfig::Validate() const {
  auto bad = [](const char* field, const std::string& why) {
    return Status::InvalidArgument(fmt::format("GRU forecaster: field '{}' {}", field, why));
  };
  if (window < 1 || window > 10000) return bad("window", "must be in 1..10000");
  if (hidden < 1 || hidden > 4096) return bad("hidden", "must be in 1..4096");
  if (layers < 1 || layers > 8) return bad("layers", "must be in 1..8");
  if (epochs < 0 || epochs > 100000) return bad("epochs", "must be in 0..100000");
  if (batch < 1) return bad("batch", "must be >= 1");
  if (!(learning_rate > 0) || !std::isfinite(learning_rate)) return bad("learning_rate", "must be > 0");
  if (threads < 1 || threads > 1024) return bad("threads", "must be in 1..1024");
  if (!(validation_fraction >= 0 && validation_fraction < 1)) return bad("validation_fraction", "must be in [0, 1)");
  return Status::Ok();
}

struct GruForecaster::Impl {
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

GruForecaster::GruForecaster(GruForecasterConfig config) : impl_(std::make_unique<Impl>()) { impl_->config = config; }
GruForecaster::~GruForecaster() = default;
GruForecaster::GruForecaster(GruForecaster&&) noexcept = default;
GruForecaster& GruForecaster::operator=(GruForecaster&&) noexcept = default;

bool GruForecaster::trained() const { return impl_->trained; }
const std::vector<double>& GruForecaster::loss_history() const { return impl_->loss_history; }
const std::vector<double>& GruForecaster::validation_history() const { return impl_->validation_history; }
int GruForecaster::best_epoch() const { return impl_->best_epoch; }
const GruForecasterConfig& GruForecaster::config() const { return impl_->config; }

Status GruForecaster::Fit(std::span<const double> series) {
  Impl& m = *impl_;
  HETSCHED_RETURN_IF_ERROR(m.config.Validate());
  const int w = m.config.window;
  if (series.size() < static_cast<size_t>(w) + 2) {
    return Status::InvalidArgument(fmt::format("GRU forecaster: {} values, needs at least window + 2 = {}", series.size(), w + 2));
  }
  if (static_cast<double>(series.size() - static_cast<size_t>(w)) * (1 - m.config.validation_fraction) < 1) {
    return Status::InvalidArgument("GRU forecaster: no training window left after the validation split");
  }
  for (size_t t = 0; t < series.size(); ++t) {
    if (!std::isfinite(series[t])) return Status::InvalidArgument(fmt::format("GRU forecaster: value {} at index {} is not finite", series[t], t));
  }
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
    for (size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng.Below(i)]);  // Fisher-Yates
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

std::vector<double> GruForecaster::OneStepPredictions(std::span<const double> series) const {
  const Impl& m = *impl_;
  std::vector<double> out(series.size(), std::numeric_limits<double>::quiet_NaN());
  if (!m.trained || series.size() <= static_cast<size_t>(m.config.window)) return out;
  ConfigureTorchThreads(m.config.threads);
  torch::NoGradGuard no_grad;
  const torch::Tensor pred = m.net->forward(m.Windows(series)).contiguous();
  auto acc = pred.accessor<double, 1>();
  for (int64_t i = 0; i < pred.size(0); ++i) out[static_cast<size_t>(i + m.config.window)] = acc[i] * m.scale + m.mean;
  return out;
}

// File format: learn/model_file.h.
Status GruForecaster::Save(const std::string& path) const {
  const Impl& m = *impl_;
  if (!m.trained) return Status::InvalidArgument(path + ": GRU forecaster is not trained; nothing to save");
  const GruForecasterConfig& c = m.config;
  HETSCHED_ASSIGN_OR_RETURN(const std::string weights, ModuleToBytes(*m.net, path));
  const ModelFields fields{{"window", static_cast<double>(c.window)},
                           {"hidden", static_cast<double>(c.hidden)},
                           {"layers", static_cast<double>(c.layers)},
                           {"epochs", static_cast<double>(c.epochs)},
                           {"batch", static_cast<double>(c.batch)},
                           {"learning_rate", c.learning_rate},
                           {"validation_fraction", c.validation_fraction},
                           {"seed", static_cast<double>(c.seed)},
                           {"threads", static_cast<double>(c.threads)},
                           {"mean", m.mean},
                           {"scale", m.scale}};
  return WriteFileAtomic(path, EncodeModelFile(kMagic, fields, weights));
}

Result<GruForecaster> GruForecaster::Load(const std::string& path) {
  HETSCHED_ASSIGN_OR_RETURN(const std::string text, ReadFile(path));
  HETSCHED_ASSIGN_OR_RETURN(const DecodedModelFile file,
                            DecodeModelFile(path, text, kMagic,
                                            {"window", "hidden", "layers", "epochs", "batch", "learning_rate",
                                             "validation_fraction", "seed", "threads", "mean", "scale"}));
  const std::vector<double>& v = file.values;
  GruForecasterConfig c;
  c.window = static_cast<int>(v[0]);
  c.hidden = static_cast<int>(v[1]);
  c.layers = static_cast<int>(v[2]);
  c.epochs = static_cast<int>(v[3]);
  c.batch = static_cast<int>(v[4]);
  c.learning_rate = v[5];
  c.validation_fraction = v[6];
  c.seed = static_cast<uint64_t>(v[7]);
  c.threads = static_cast<int>(v[8]);
  if (Status st = c.Validate(); !st.ok()) return st.WithContext(path + ": ");
  if (!(v[10] > 0)) return Status::ParseError(fmt::format("{}: field 'scale' must be > 0", path));
  GruForecaster f(c);
  Impl& m = *f.impl_;
  m.mean = v[9];
  m.scale = v[10];
  m.Build();
  HETSCHED_RETURN_IF_ERROR(ModuleFromBytes(*m.net, file.weights, path));
  m.net->eval();
  m.trained = true;
  return f;
}

}  // namespace hetsched::learn
