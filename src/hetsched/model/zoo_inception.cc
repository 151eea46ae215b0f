// Inception-v3 (Szegedy et al. 2016) in torchvision's layout at 299x299, with the auxiliary
// classifier that training uses. Each Inception module is one composite layer (its branches run
// side by side, so a pipeline can only cut between modules); its activation is the module output.
#include <string>

#include "hetsched/model/zoo_builder.h"

namespace hetsched::zoo {

namespace {

// A conv + BN ("BasicConv2d") with a rectangular kernel.
ConvSpec Rect(int out_c, int kh, int kw, int stride, int ph, int pw) {
  return ConvSpec{out_c, kh, kw, stride, ph, pw, false, true};
}
ConvSpec Sq(int out_c, int k, int stride = 1, int pad = 0) { return Rect(out_c, k, k, stride, pad, pad); }

// One branch of a module: a chain of convs (and pools) applied from the module input.
class Branch {
 public:
  explicit Branch(Shape in) : x_(in) {}
  Branch& Then(const ConvSpec& spec) {
    Shape out;
    parts_.push_back(Conv2d("conv", x_, spec, &out));
    x_ = out;
    return *this;
  }
  Branch& Pool(int k, int stride, int pad) {
    Shape out;
    parts_.push_back(Pool2d("pool", x_, k, stride, pad, &out));
    x_ = out;
    return *this;
  }
  Shape out() const { return x_; }
  const std::vector<LayerProfile>& parts() const { return parts_; }

 private:
  Shape x_;
  std::vector<LayerProfile> parts_;
};

// Concatenates the branches along channels into one layer and moves *x to the module output.
LayerProfile Module(const std::string& name, const std::vector<Branch>& branches, Shape* x) {
  std::vector<LayerProfile> parts;
  Shape out{0, branches.front().out().h, branches.front().out().w};
  for (const Branch& b : branches) {
    parts.insert(parts.end(), b.parts().begin(), b.parts().end());
    out.c += b.out().c;
  }
  *x = out;
  return MergeLayers(name, LayerKind::kConv, parts, out.elems());
}

LayerProfile InceptionA(const std::string& name, Shape* x, int pool_features) {
  const Shape in = *x;
  return Module(name,
                {Branch(in).Then(Sq(64, 1)),
                 Branch(in).Then(Sq(48, 1)).Then(Sq(64, 5, 1, 2)),
                 Branch(in).Then(Sq(64, 1)).Then(Sq(96, 3, 1, 1)).Then(Sq(96, 3, 1, 1)),
                 Branch(in).Pool(3, 1, 1).Then(Sq(pool_features, 1))},
                x);
}

LayerProfile InceptionB(const std::string& name, Shape* x) {
  const Shape in = *x;
  return Module(name,
                {Branch(in).Then(Sq(384, 3, 2)),
                 Branch(in).Then(Sq(64, 1)).Then(Sq(96, 3, 1, 1)).Then(Sq(96, 3, 2)),
                 Branch(in).Pool(3, 2, 0)},
                x);
}

LayerProfile InceptionC(const std::string& name, Shape* x, int c7) {
  const Shape in = *x;
  return Module(name,
                {Branch(in).Then(Sq(192, 1)),
                 Branch(in).Then(Sq(c7, 1)).Then(Rect(c7, 1, 7, 1, 0, 3)).Then(Rect(192, 7, 1, 1, 3, 0)),
                 Branch(in)
                     .Then(Sq(c7, 1))
                     .Then(Rect(c7, 7, 1, 1, 3, 0))
                     .Then(Rect(c7, 1, 7, 1, 0, 3))
                     .Then(Rect(c7, 7, 1, 1, 3, 0))
                     .Then(Rect(192, 1, 7, 1, 0, 3)),
                 Branch(in).Pool(3, 1, 1).Then(Sq(192, 1))},
                x);
}

LayerProfile InceptionD(const std::string& name, Shape* x) {
  const Shape in = *x;
  return Module(name,
                {Branch(in).Then(Sq(192, 1)).Then(Sq(320, 3, 2)),
                 Branch(in)
                     .Then(Sq(192, 1))
                     .Then(Rect(192, 1, 7, 1, 0, 3))
                     .Then(Rect(192, 7, 1, 1, 3, 0))
                     .Then(Sq(192, 3, 2)),
                 Branch(in).Pool(3, 2, 0)},
                x);
}

// The 1x3 and 3x1 convs of a split branch both read the same input; each is its own Branch
// whose shared 1x1 (or 1x1 + 3x3) stem is counted once, in the first of the pair.
LayerProfile InceptionE(const std::string& name, Shape* x) {
  const Shape in = *x;
  Branch stem3(in);
  stem3.Then(Sq(384, 1));
  Branch stem3dbl(in);
  stem3dbl.Then(Sq(448, 1)).Then(Sq(384, 3, 1, 1));
  Branch b3a = stem3, b3b(stem3.out()), d3a = stem3dbl, d3b(stem3dbl.out());
  b3a.Then(Rect(384, 1, 3, 1, 0, 1));
  b3b.Then(Rect(384, 3, 1, 1, 1, 0));
  d3a.Then(Rect(384, 1, 3, 1, 0, 1));
  d3b.Then(Rect(384, 3, 1, 1, 1, 0));
  return Module(name, {Branch(in).Then(Sq(320, 1)), b3a, b3b, d3a, d3b,
                       Branch(in).Pool(3, 1, 1).Then(Sq(192, 1))},
                x);
}

ModelProfile InceptionV3() {
  ModelProfile m;
  m.name = "inception-v3";
  m.display_name = "Inception-v3 (ImageNet 299x299)";
  m.domain = "vision";
  m.default_batch_size = 64;
  m.derivation =
      "torchvision Inception-v3 (Szegedy et al. 2016) at 299x299: 5-conv stem, modules "
      "A x3, B, C x4 (factorised 7x7), D, E x2, auxiliary classifier folded into Mixed_6e, "
      "BN after every conv, 1000-way FC; one composite layer per module";
  std::vector<LayerProfile>& L = m.layers;
  Shape x{3, 299, 299};
  auto stem = [&](const std::string& name, const ConvSpec& spec) {
    Shape out;
    L.push_back(Conv2d(name, x, spec, &out));
    x = out;
  };
  auto pool = [&](const std::string& name) {
    Shape out;
    L.push_back(Pool2d(name, x, 3, 2, 0, &out));
    x = out;
  };
  stem("Conv2d_1a_3x3", Sq(32, 3, 2));
  stem("Conv2d_2a_3x3", Sq(32, 3));
  stem("Conv2d_2b_3x3", Sq(64, 3, 1, 1));
  pool("maxpool1");
  stem("Conv2d_3b_1x1", Sq(80, 1));
  stem("Conv2d_4a_3x3", Sq(192, 3));
  pool("maxpool2");
  L.push_back(InceptionA("Mixed_5b", &x, 32));
  L.push_back(InceptionA("Mixed_5c", &x, 64));
  L.push_back(InceptionA("Mixed_5d", &x, 64));
  L.push_back(InceptionB("Mixed_6a", &x));
  L.push_back(InceptionC("Mixed_6b", &x, 128));
  L.push_back(InceptionC("Mixed_6c", &x, 160));
  L.push_back(InceptionC("Mixed_6d", &x, 160));
  LayerProfile m6e = InceptionC("Mixed_6e", &x, 192);
  {
    // Auxiliary classifier on the 17x17x768 map: 5x5/3 avg-pool, 1x1 conv 128, 5x5 conv 768,
    // FC 768 -> 1000. Folded into Mixed_6e so that the layer list stays a chain.
    Branch aux(x);
    aux.Pool(5, 3, 0).Then(Sq(128, 1)).Then(Sq(768, 5));
    std::vector<LayerProfile> parts{m6e};
    parts.insert(parts.end(), aux.parts().begin(), aux.parts().end());
    parts.push_back(Dense("aux.fc", aux.out().elems(), 1000, true));
    L.push_back(MergeLayers("Mixed_6e+aux", LayerKind::kConv, parts, x.elems()));
  }
  L.push_back(InceptionD("Mixed_7a", &x));
  L.push_back(InceptionE("Mixed_7b", &x));
  L.push_back(InceptionE("Mixed_7c", &x));
  Shape pooled;
  L.push_back(Pool2d("avgpool", x, x.h, 1, 0, &pooled));
  L.push_back(Dense("fc", pooled.elems(), 1000, true));
  return m;
}

}  // namespace

void AddInceptionV3(ModelZoo& zoo) { zoo.Add(InceptionV3(), {"inceptionv3", "inception"}); }

}  // namespace hetsched::zoo
