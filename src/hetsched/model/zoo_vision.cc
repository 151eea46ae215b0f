// Convolutional image classifiers: ResNet-50 and VGG-16 (ImageNet, 224x224) and the CIFAR-10
// ResNet-18 of Gavel's workload set. Built layer by layer from the architectures; totals and
// their published counterparts are in docs/models.md and tests/model/zoo_vision_test.cc.
#include <string>

#include "hetsched/model/zoo_builder.h"

namespace hetsched::zoo {

namespace {

// torchvision's ResNet v1.5 bottleneck (He et al. 2016, stride on the 3x3 conv): 1x1 -> 3x3 ->
// 1x1 (x4 width), each followed by BN; the first block of a stage adds a 1x1 projection
// shortcut. The shortcut conv is listed after the main path; the residual add is not counted.
void Bottleneck(std::vector<LayerProfile>* layers, const std::string& name, Shape* x, int planes,
                int stride) {
  const Shape in = *x;
  AddConv(layers, name + ".conv1", x, Conv(planes, 1, 1, 0, false, true));
  AddConv(layers, name + ".conv2", x, Conv(planes, 3, stride, 1, false, true));
  AddConv(layers, name + ".conv3", x, Conv(planes * 4, 1, 1, 0, false, true));
  if (stride != 1 || in.c != planes * 4) {
    Shape unused;
    layers->push_back(Conv2d(name + ".downsample", in, Conv(planes * 4, 1, stride, 0, false, true), &unused));
  }
}

// Basic block (two 3x3 convs with BN), projection shortcut when the shape changes.
void BasicBlock(std::vector<LayerProfile>* layers, const std::string& name, Shape* x, int planes,
                int stride) {
  const Shape in = *x;
  AddConv(layers, name + ".conv1", x, Conv(planes, 3, stride, 1, false, true));
  AddConv(layers, name + ".conv2", x, Conv(planes, 3, 1, 1, false, true));
  if (stride != 1 || in.c != planes) {
    Shape unused;
    layers->push_back(Conv2d(name + ".shortcut", in, Conv(planes, 1, stride, 0, false, true), &unused));
  }
}

ModelProfile ResNet50() {
  ModelProfile m;
  m.name = "resnet50";
  m.display_name = "ResNet-50 (ImageNet 224x224)";
  m.domain = "vision";
  m.default_batch_size = 64;
  m.derivation =
      "torchvision ResNet-50 v1.5 (He et al. 2016): 7x7 stem, bottleneck stages [3,4,6,3], "
      "BN after every conv, 1000-way FC; per-layer MACs/params from shapes at 224x224";
  std::vector<LayerProfile>& L = m.layers;
  Shape x{3, 224, 224};
  AddConv(&L, "conv1", &x, Conv(64, 7, 2, 3, false, true));
  Shape pooled;
  L.push_back(Pool2d("maxpool", x, 3, 2, 1, &pooled));
  x = pooled;
  const int blocks[4] = {3, 4, 6, 3};
  for (int s = 0; s < 4; ++s) {
    for (int b = 0; b < blocks[s]; ++b) {
      const int stride = (b == 0 && s > 0) ? 2 : 1;
      Bottleneck(&L, "layer" + std::to_string(s + 1) + "." + std::to_string(b), &x, 64 << s, stride);
    }
  }
  L.push_back(Pool2d("avgpool", x, x.h, 1, 0, &pooled));
  L.push_back(Dense("fc", pooled.elems(), 1000, true));
  return m;
}

ModelProfile ResNet18Cifar() {
  ModelProfile m;
  m.name = "resnet18-cifar";
  m.display_name = "ResNet-18 (CIFAR-10 32x32)";
  m.domain = "vision";
  m.default_batch_size = 128;
  m.derivation =
      "CIFAR-10 ResNet-18 as in Gavel's cifar10 workload: 3x3 stem without max-pool, basic-block "
      "stages [2,2,2,2] of 64..512 channels on 32x32 inputs, 4x4 average pool, 10-way FC";
  std::vector<LayerProfile>& L = m.layers;
  Shape x{3, 32, 32};
  AddConv(&L, "conv1", &x, Conv(64, 3, 1, 1, false, true));
  for (int s = 0; s < 4; ++s) {
    for (int b = 0; b < 2; ++b) {
      const int stride = (b == 0 && s > 0) ? 2 : 1;
      BasicBlock(&L, "layer" + std::to_string(s + 1) + "." + std::to_string(b), &x, 64 << s, stride);
    }
  }
  Shape pooled;
  L.push_back(Pool2d("avgpool", x, 4, 4, 0, &pooled));
  L.push_back(Dense("linear", pooled.elems(), 10, true));
  return m;
}

ModelProfile Vgg16() {
  ModelProfile m;
  m.name = "vgg16";
  m.display_name = "VGG-16 (ImageNet 224x224)";
  m.domain = "vision";
  m.default_batch_size = 64;
  m.derivation =
      "VGG-16 configuration D (Simonyan & Zisserman 2015), torchvision layout without BN: 13 3x3 "
      "convs with bias in 5 groups, 2x2 max-pools, FC 25088-4096-4096-1000";
  std::vector<LayerProfile>& L = m.layers;
  const int cfg[] = {64, 64, 0, 128, 128, 0, 256, 256, 256, 0, 512, 512, 512, 0, 512, 512, 512, 0};
  Shape x{3, 224, 224};
  int conv = 0, pool = 0;
  for (int c : cfg) {
    if (c == 0) {
      Shape out;
      L.push_back(Pool2d("pool" + std::to_string(++pool), x, 2, 2, 0, &out));
      x = out;
    } else {
      AddConv(&L, "conv" + std::to_string(++conv), &x, Conv(c, 3, 1, 1, true, false));
    }
  }
  L.push_back(Dense("fc6", x.elems(), 4096, true));
  L.push_back(Dense("fc7", 4096, 4096, true));
  L.push_back(Dense("fc8", 4096, 1000, true));
  return m;
}

}  // namespace

void AddVisionModels(ModelZoo& zoo) {
  zoo.Add(ResNet50(), {"resnet-50", "resnet50-imagenet"});
  zoo.Add(ResNet18Cifar(), {"resnet-18", "resnet18", "resnet18-cifar10"});
  zoo.Add(Vgg16(), {"vgg-16", "vgg"});
}

}  // namespace hetsched::zoo
