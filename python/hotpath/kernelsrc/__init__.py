# SPDX-License-Identifier: GPL-2.0-only
"""The kernel's own code, timed: real kernel trees' code as the kernel runs it.

Every lab can time hotpath's re-implementations of the kernel's code
(kernel-2024, kernel-x86, ...); where a real tree has the code, this
package gives the runner that tree's own code as variants named after
their kernel: `linux-6.1`, `linux-6.12` (Debian's linux-source packages
with Debian's config), `linux-v6.8` (a git revision of the developer's
tree), `linux-HEAD+dirty` (its working files). A path of the kernel's
that its dispatch chooses among is a variant of its own beside the
dispatch: `linux-6.12:pcl`.

Every tree is prepared by its own Kbuild (kbuild.py: Debian's from the
set-up's cache, a developer's revisions in git worktrees of the cache,
a working tree with O=; the config: --kernel-config) and its objects
loaded into the runner as the kernel loads a module and patched as the
kernel patches itself on this CPU (kbuilt.py, kload.py, c/kload), with
`--mitigations off` (the default) or `host`; a `host` variant is named
with `+host`. Building a tree runs its code (its Makefiles, scripts and
compiler plugins), and timing it runs its objects: as root, contained
(contain.py) unless --trust-tree.

They pass the correctness gate like every variant; they are flagged
"kernel" (HP_V_KERNEL) so the reports know real code from a
re-implementation. docs/kernel-source.md has the whole story.

Nothing is imported here: a command loads the modules it uses.

- variants: the variants a lab gets from the trees (lab_kernels, KernelSet)
- trees: a developer's tree as --kernel-tree names it, checked and named
- kbuild: whole trees prepared by their own build, objects from Kbuild
- devtrees: a developer's trees (worktrees of its commits, its working tree)
- kbuilt, kload: the Kbuild components, the loader's spec, mitigations
- layouts: which files and symbols a tree must have, which variants
- contain: a tree's code run contained when hotpath runs as root
- git: git run so that nothing a repository says runs
"""
