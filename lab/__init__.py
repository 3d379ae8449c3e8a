"""Cross-cutting helpers every stage uses: errors, the cache, tools, progress.

Nothing here knows about kernels, images or simulators; the stages
(kernels -> buildroot -> configs -> analysis) import from here and never
from a later stage.
"""
