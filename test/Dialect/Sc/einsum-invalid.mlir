// RUN: shardc-opt %s -split-input-file -verify-diagnostics

// torch.einsum's refusals, one per case, at the op's location.

// case: subscripts for fewer operands than the op has
func.func @operand_count(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>) {
  // expected-error @+2 {{'sc.einsum' op equation 'ij->ij' has subscripts for 1 operands but the op has 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.einsum %a, %b {equation = "ij->ij"} : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x4xf32>
  return
}

// -----

// case: subscripts naming fewer dims than the operand has
func.func @rank(%a: tensor<3x4xf32>) {
  // expected-error @+2 {{'sc.einsum' op operand #0 has rank 2 but its subscripts 'i' name 1 dims}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.einsum %a {equation = "i->i"} : (tensor<3x4xf32>) -> tensor<3xf32>
  return
}

// -----

// case: '...' cannot stand for a negative number of dims
func.func @ellipsis_rank(%a: tensor<3xf32>) {
  // expected-error @+2 {{'sc.einsum' op operand #0 has rank 1 but its subscripts '...ij' name at least 2 dims}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.einsum %a {equation = "...ij->...ij"} : (tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

// case: a diagonal (a label twice in one operand)
func.func @diagonal(%a: tensor<3x3xf32>) {
  // expected-error @+2 {{'sc.einsum' op label 'i' appears twice in operand #0 'ii'; diagonals (a label repeated in one operand) are not taken}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.einsum %a {equation = "ii->i"} : (tensor<3x3xf32>) -> tensor<3xf32>
  return
}

// -----

// case: a label twice in the output
func.func @output_twice(%a: tensor<3x4xf32>) {
  // expected-error @+2 {{'sc.einsum' op label 'i' appears twice in the output 'ii'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.einsum %a {equation = "ij->ii"} : (tensor<3x4xf32>) -> tensor<3x3xf32>
  return
}

// -----

// case: an output label no operand has
func.func @output_unknown(%a: tensor<3x4xf32>) {
  // expected-error @+2 {{'sc.einsum' op output label 'k' names no operand dim}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.einsum %a {equation = "ij->k"} : (tensor<3x4xf32>) -> tensor<3xf32>
  return
}

// -----

// case: sizes that neither agree nor broadcast
func.func @sizes(%a: tensor<3x4xf32>, %b: tensor<5x6xf32>) {
  // expected-error @+2 {{'sc.einsum' op label 'j' has size 4 in an earlier operand but 5 in operand #1; sizes must agree or be 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.einsum %a, %b {equation = "ij,jk->ik"} : (tensor<3x4xf32>, tensor<5x6xf32>) -> tensor<3x6xf32>
  return
}

// -----

// case: dims under '...' the explicit output drops
func.func @ellipsis_dropped(%a: tensor<2x3x4xf32>) {
  // expected-error @+2 {{'sc.einsum' op the operands have dims under '...', so the output 'ij' must place them with '...'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.einsum %a {equation = "...ij->ij"} : (tensor<2x3x4xf32>) -> tensor<3x4xf32>
  return
}

// -----

// case: a character that is not a label
func.func @character(%a: tensor<3x4xf32>) {
  // expected-error @+2 {{'sc.einsum' op invalid subscripts 'i1' for operand #0: labels are letters, with at most one '...'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.einsum %a {equation = "i1->i"} : (tensor<3x4xf32>) -> tensor<3xf32>
  return
}

// -----

// case: two arrows
func.func @arrows(%a: tensor<3x4xf32>) {
  // expected-error @+2 {{'sc.einsum' op equation 'ij->ji->ij' has two '->'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.einsum %a {equation = "ij->ji->ij"} : (tensor<3x4xf32>) -> tensor<3x4xf32>
  return
}

// -----

// case: operands of different element types
func.func @elements(%a: tensor<3x4xf32>, %b: tensor<4x5xf64>) {
  // expected-error @+2 {{'sc.einsum' op operand #1 has element type 'f64' but operand #0 has 'f32'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.einsum %a, %b {equation = "ij,jk->ik"} : (tensor<3x4xf32>, tensor<4x5xf64>) -> tensor<3x5xf32>
  return
}

// -----

// case: no operands
func.func @none() {
  // expected-error @+2 {{'sc.einsum' op needs at least one operand}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = sc.einsum {equation = "->"} : () -> tensor<f32>
  return
}
