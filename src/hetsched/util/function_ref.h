// FunctionRef<R(Args...)>: a reference to a callable that the callee only calls during the call
// (as C++26's std::function_ref): two words, nothing allocated, one indirect call. For callbacks
// on hot paths, where std::function would allocate for a lambda that captures more than two
// words. The callable must outlive the FunctionRef: pass a lambda as an argument, do not store it.
// Refers to objects only (a lambda, a function object, a function pointer variable).
#pragma once

#include <functional>
#include <memory>
#include <type_traits>
#include <utility>

namespace hetsched {

template <typename Signature>
class FunctionRef;

template <typename R, typename... Args>
class FunctionRef<R(Args...)> {
 public:
  template <typename F>
    requires(!std::is_same_v<std::remove_cvref_t<F>, FunctionRef> && std::is_object_v<std::remove_reference_t<F>> &&
             std::is_invocable_r_v<R, F&, Args...>)
  FunctionRef(F&& f) noexcept  // NOLINT(google-explicit-constructor): implicit, as std::function's
      : object_(const_cast<void*>(static_cast<const void*>(std::addressof(f)))),
        call_([](void* object, Args... args) -> R {
          auto& callable = *static_cast<std::remove_reference_t<F>*>(object);
          if constexpr (std::is_void_v<R>) {
            std::invoke(callable, std::forward<Args>(args)...);  // a result, if any, is dropped
          } else {
            return std::invoke(callable, std::forward<Args>(args)...);
          }
        }) {}

  R operator()(Args... args) const { return call_(object_, std::forward<Args>(args)...); }

 private:
  void* object_;
  R (*call_)(void*, Args...);
};

}  // namespace hetsched
