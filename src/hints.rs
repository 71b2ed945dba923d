//! Hints to the machine, at the bottom of the crate: the big tables ask for huge pages
//! before they are written, and the kernels whose next load depends on a load that misses
//! ask for cache lines ahead. Hints only: neither changes a value, and both do nothing
//! where the platform offers nothing. Every layer may call them; they call nothing here.

/// Asks the kernel to back the pages of `v`'s allocation not yet touched with huge pages
/// (Linux's `madvise(MADV_HUGEPAGE)`; a hint, ignored elsewhere or when refused). Big
/// tables read at random (a 4x4k4 learner's values, the MDP's rows) then miss the TLB
/// far less often. Only allocations of at least 4 MiB are advised.
pub fn huge_pages<T>(v: &Vec<T>) {
    const HUGE: usize = 2 << 20;
    let bytes = v.capacity() * std::mem::size_of::<T>();
    if bytes < 2 * HUGE {
        return;
    }
    #[cfg(target_os = "linux")]
    {
        let start = v.as_ptr() as usize;
        let aligned = start.next_multiple_of(HUGE);
        let end = (start + bytes) / HUGE * HUGE;
        if end > aligned {
            // SAFETY: the range lies within `v`'s allocation; MADV_HUGEPAGE changes how
            // pages are backed, never their contents.
            unsafe {
                libc::madvise(aligned as *mut libc::c_void, end - aligned, libc::MADV_HUGEPAGE);
            }
        }
    }
}

/// Asks the processor to bring the cache line of `v[i]` in ahead of its use (x86-64's
/// `prefetcht0`; nothing elsewhere). A hint: it never faults, changes no value, and an
/// index past the end is not asked for. A kernel whose next loads depend on a load that
/// misses issues them this way as soon as their addresses are known, so that their misses
/// overlap instead of following one another.
#[inline(always)]
pub fn prefetch<T>(v: &[T], i: usize) {
    #[cfg(target_arch = "x86_64")]
    if i < v.len() {
        // SAFETY: `i` is in bounds, and a prefetch reads nothing the program sees.
        unsafe { std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(v.as_ptr().add(i).cast()) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (v, i);
}
