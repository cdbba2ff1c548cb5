//! Seed 002's measures of how well a tenant is served by the power it is
//! allocated (chapter 4, §4.1): the power differential `DifPoder`
//! (eq. 4.1) and the remaining powers after a preemption (`PR_Preemp`,
//! eq. 4.2) or an allocation (`PR_Aloc`, eq. 4.3). Powers are in speed
//! units (a host of speed 2 is twice a host of speed 1); only their ratios
//! matter, so the seed's MFLOPS give the same values.

/// `DifPoder_i = (Alocado_i − Porcao_i) / Porcao_i` (eq. 4.1): negative,
/// the relative shortfall; positive, the relative excess; 0, served exactly
/// by its portion (the seed's text says 1 there, a slip: the equation is
/// 0 at `Alocado = Porcao`).
pub fn dif_poder(allocated: f64, portion: f64) -> f64 {
    (allocated - portion) / portion
}

/// `PR_Preemp_{z,y} = (Alocado_z − Porcao_z − Poder_y) / Porcao_z`
/// (eq. 4.2): tenant `z`'s differential once its task on machine `y`
/// (of power `Poder_y`) is preempted.
pub fn pr_preemp(allocated: f64, portion: f64, machine: f64) -> f64 {
    (allocated - portion - machine) / portion
}

/// `PR_Aloc_{w,y} = (Alocado_w − Porcao_w + Poder_y) / Porcao_w`
/// (eq. 4.3): tenant `w`'s differential once machine `y` runs a task of
/// its. The seed divides by `Porcao_z` (the victim's portion), a slip:
/// the differential it names is `w`'s, so `w`'s own portion is used.
pub fn pr_aloc(allocated: f64, portion: f64, machine: f64) -> f64 {
    (allocated - portion + machine) / portion
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The seed's platform (§5.2): i7 132250, i5 54760, i3 29750 MFLOPS;
    /// user1 owns three i7s (396750 MFLOPS, 45.76 % of 867040).
    #[test]
    fn the_seeds_equations_on_its_platform() {
        let (i7, i5, i3): (f64, f64, f64) = (132_250.0, 54_760.0, 29_750.0);
        let total = 4.0 * (i7 + i5 + i3);
        let user1 = 3.0 * i7;
        assert!((user1 / total - 0.4576).abs() < 5e-5);
        // user1 runs on two i7 and one i3: (264500 + 29750 − 396750) / 396750.
        let alloc = 2.0 * i7 + i3;
        assert!((dif_poder(alloc, user1) - (-102_500.0 / 396_750.0)).abs() < 1e-12);
        // Served exactly: 0, not 1.
        assert_eq!(dif_poder(user1, user1), 0.0);
        // user4 owns three i3s (89250) and runs on two i7s: 175250/89250 over.
        let user4 = 3.0 * i3;
        let alloc4 = 2.0 * i7;
        assert!((dif_poder(alloc4, user4) - 175_250.0 / 89_250.0).abs() < 1e-12);
        // Preempting its i7 leaves (264500 − 89250 − 132250) / 89250.
        assert!((pr_preemp(alloc4, user4, i7) - 43_000.0 / 89_250.0).abs() < 1e-12);
        // user1 given that i7: (294250 − 396750 + 132250) / 396750.
        assert!((pr_aloc(alloc, user1, i7) - 29_750.0 / 396_750.0).abs() < 1e-12);
        // An i5 instead: less for user1, more left to user4.
        assert!(pr_aloc(alloc, user1, i5) < pr_aloc(alloc, user1, i7));
        assert!(pr_preemp(alloc4, user4, i5) > pr_preemp(alloc4, user4, i7));
    }
}
