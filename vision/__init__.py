"""Camera sources, card location, the ONNX card classifier, the play tracker,
and the training code (synthetic renderer, torch) behind the shipped model."""
