use nilang::Reversible;
fn main() {
    println!("besselj_n {:b}", nilang_apps::bessel::ibesselj_n::ADDITIVE);
    println!("ibesselj {:b}", nilang_apps::bessel::ibesselj::ADDITIVE);
    println!(
        "ibesselj_log {:b}",
        nilang_apps::bessel::ibesselj_log::ADDITIVE
    );
    println!(
        "embedding_loss {:b}",
        nilang_apps::embedding::embedding_loss::ADDITIVE
    );
    println!(
        "embedding_penalty {:b}",
        nilang_apps::embedding::embedding_penalty::ADDITIVE
    );
    println!(
        "gmm_objective_i {:b}",
        nilang_apps::gmm::gmm_objective_i::ADDITIVE
    );
    println!("gmm_rest {:b}", nilang_apps::gmm::gmm_rest::ADDITIVE);
    println!("ba_reproj_i {:b}", nilang_apps::ba::ba_reproj_i::ADDITIVE);
    println!(
        "struct {}",
        <nilang_apps::embedding::EmbeddingLoss as Reversible<(&mut f64, &mut [f64], usize)>>::additive(&nilang_apps::embedding::EmbeddingLoss)
    );
}
