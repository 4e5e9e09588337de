import heatscope

def attend(image, prompt):       # image: [H, W] or [H, W, C] array, as Heatscope decodes the file
    grey = image.reshape(image.shape[0], image.shape[1], -1).mean(axis=2)
    return grey[::32, ::32]      # a [h, w] map, or (tokens, [T, h, w]), or dict(maps=, tokens=, no_attn=)

heatscope.serve(attend)
