//! Issue 27 item 3: `#[i]` functions with 200 parameters compile (the value-only and
//! adjoint-only variants take them as one plain tuple; the `CallTuple` trait stops at 32) and
//! differentiate through an `#[i]` wrapper (the gradient API takes up to 32 arguments; its
//! error says so).
use nilang::prelude::*;

/// `out += x · Σ k_j` over 198 counts: 200 parameters.
#[i]
#[allow(clippy::too_many_arguments)]
fn many<T: Scalar>(
    out: &mut T,
    x: &mut T,
    k0: usize,
    k1: usize,
    k2: usize,
    k3: usize,
    k4: usize,
    k5: usize,
    k6: usize,
    k7: usize,
    k8: usize,
    k9: usize,
    k10: usize,
    k11: usize,
    k12: usize,
    k13: usize,
    k14: usize,
    k15: usize,
    k16: usize,
    k17: usize,
    k18: usize,
    k19: usize,
    k20: usize,
    k21: usize,
    k22: usize,
    k23: usize,
    k24: usize,
    k25: usize,
    k26: usize,
    k27: usize,
    k28: usize,
    k29: usize,
    k30: usize,
    k31: usize,
    k32: usize,
    k33: usize,
    k34: usize,
    k35: usize,
    k36: usize,
    k37: usize,
    k38: usize,
    k39: usize,
    k40: usize,
    k41: usize,
    k42: usize,
    k43: usize,
    k44: usize,
    k45: usize,
    k46: usize,
    k47: usize,
    k48: usize,
    k49: usize,
    k50: usize,
    k51: usize,
    k52: usize,
    k53: usize,
    k54: usize,
    k55: usize,
    k56: usize,
    k57: usize,
    k58: usize,
    k59: usize,
    k60: usize,
    k61: usize,
    k62: usize,
    k63: usize,
    k64: usize,
    k65: usize,
    k66: usize,
    k67: usize,
    k68: usize,
    k69: usize,
    k70: usize,
    k71: usize,
    k72: usize,
    k73: usize,
    k74: usize,
    k75: usize,
    k76: usize,
    k77: usize,
    k78: usize,
    k79: usize,
    k80: usize,
    k81: usize,
    k82: usize,
    k83: usize,
    k84: usize,
    k85: usize,
    k86: usize,
    k87: usize,
    k88: usize,
    k89: usize,
    k90: usize,
    k91: usize,
    k92: usize,
    k93: usize,
    k94: usize,
    k95: usize,
    k96: usize,
    k97: usize,
    k98: usize,
    k99: usize,
    k100: usize,
    k101: usize,
    k102: usize,
    k103: usize,
    k104: usize,
    k105: usize,
    k106: usize,
    k107: usize,
    k108: usize,
    k109: usize,
    k110: usize,
    k111: usize,
    k112: usize,
    k113: usize,
    k114: usize,
    k115: usize,
    k116: usize,
    k117: usize,
    k118: usize,
    k119: usize,
    k120: usize,
    k121: usize,
    k122: usize,
    k123: usize,
    k124: usize,
    k125: usize,
    k126: usize,
    k127: usize,
    k128: usize,
    k129: usize,
    k130: usize,
    k131: usize,
    k132: usize,
    k133: usize,
    k134: usize,
    k135: usize,
    k136: usize,
    k137: usize,
    k138: usize,
    k139: usize,
    k140: usize,
    k141: usize,
    k142: usize,
    k143: usize,
    k144: usize,
    k145: usize,
    k146: usize,
    k147: usize,
    k148: usize,
    k149: usize,
    k150: usize,
    k151: usize,
    k152: usize,
    k153: usize,
    k154: usize,
    k155: usize,
    k156: usize,
    k157: usize,
    k158: usize,
    k159: usize,
    k160: usize,
    k161: usize,
    k162: usize,
    k163: usize,
    k164: usize,
    k165: usize,
    k166: usize,
    k167: usize,
    k168: usize,
    k169: usize,
    k170: usize,
    k171: usize,
    k172: usize,
    k173: usize,
    k174: usize,
    k175: usize,
    k176: usize,
    k177: usize,
    k178: usize,
    k179: usize,
    k180: usize,
    k181: usize,
    k182: usize,
    k183: usize,
    k184: usize,
    k185: usize,
    k186: usize,
    k187: usize,
    k188: usize,
    k189: usize,
    k190: usize,
    k191: usize,
    k192: usize,
    k193: usize,
    k194: usize,
    k195: usize,
    k196: usize,
    k197: usize,
) {
    for _j in 0..k0 {
        out += x;
    }
    for _j in 0..k1 {
        out += x;
    }
    for _j in 0..k2 {
        out += x;
    }
    for _j in 0..k3 {
        out += x;
    }
    for _j in 0..k4 {
        out += x;
    }
    for _j in 0..k5 {
        out += x;
    }
    for _j in 0..k6 {
        out += x;
    }
    for _j in 0..k7 {
        out += x;
    }
    for _j in 0..k8 {
        out += x;
    }
    for _j in 0..k9 {
        out += x;
    }
    for _j in 0..k10 {
        out += x;
    }
    for _j in 0..k11 {
        out += x;
    }
    for _j in 0..k12 {
        out += x;
    }
    for _j in 0..k13 {
        out += x;
    }
    for _j in 0..k14 {
        out += x;
    }
    for _j in 0..k15 {
        out += x;
    }
    for _j in 0..k16 {
        out += x;
    }
    for _j in 0..k17 {
        out += x;
    }
    for _j in 0..k18 {
        out += x;
    }
    for _j in 0..k19 {
        out += x;
    }
    for _j in 0..k20 {
        out += x;
    }
    for _j in 0..k21 {
        out += x;
    }
    for _j in 0..k22 {
        out += x;
    }
    for _j in 0..k23 {
        out += x;
    }
    for _j in 0..k24 {
        out += x;
    }
    for _j in 0..k25 {
        out += x;
    }
    for _j in 0..k26 {
        out += x;
    }
    for _j in 0..k27 {
        out += x;
    }
    for _j in 0..k28 {
        out += x;
    }
    for _j in 0..k29 {
        out += x;
    }
    for _j in 0..k30 {
        out += x;
    }
    for _j in 0..k31 {
        out += x;
    }
    for _j in 0..k32 {
        out += x;
    }
    for _j in 0..k33 {
        out += x;
    }
    for _j in 0..k34 {
        out += x;
    }
    for _j in 0..k35 {
        out += x;
    }
    for _j in 0..k36 {
        out += x;
    }
    for _j in 0..k37 {
        out += x;
    }
    for _j in 0..k38 {
        out += x;
    }
    for _j in 0..k39 {
        out += x;
    }
    for _j in 0..k40 {
        out += x;
    }
    for _j in 0..k41 {
        out += x;
    }
    for _j in 0..k42 {
        out += x;
    }
    for _j in 0..k43 {
        out += x;
    }
    for _j in 0..k44 {
        out += x;
    }
    for _j in 0..k45 {
        out += x;
    }
    for _j in 0..k46 {
        out += x;
    }
    for _j in 0..k47 {
        out += x;
    }
    for _j in 0..k48 {
        out += x;
    }
    for _j in 0..k49 {
        out += x;
    }
    for _j in 0..k50 {
        out += x;
    }
    for _j in 0..k51 {
        out += x;
    }
    for _j in 0..k52 {
        out += x;
    }
    for _j in 0..k53 {
        out += x;
    }
    for _j in 0..k54 {
        out += x;
    }
    for _j in 0..k55 {
        out += x;
    }
    for _j in 0..k56 {
        out += x;
    }
    for _j in 0..k57 {
        out += x;
    }
    for _j in 0..k58 {
        out += x;
    }
    for _j in 0..k59 {
        out += x;
    }
    for _j in 0..k60 {
        out += x;
    }
    for _j in 0..k61 {
        out += x;
    }
    for _j in 0..k62 {
        out += x;
    }
    for _j in 0..k63 {
        out += x;
    }
    for _j in 0..k64 {
        out += x;
    }
    for _j in 0..k65 {
        out += x;
    }
    for _j in 0..k66 {
        out += x;
    }
    for _j in 0..k67 {
        out += x;
    }
    for _j in 0..k68 {
        out += x;
    }
    for _j in 0..k69 {
        out += x;
    }
    for _j in 0..k70 {
        out += x;
    }
    for _j in 0..k71 {
        out += x;
    }
    for _j in 0..k72 {
        out += x;
    }
    for _j in 0..k73 {
        out += x;
    }
    for _j in 0..k74 {
        out += x;
    }
    for _j in 0..k75 {
        out += x;
    }
    for _j in 0..k76 {
        out += x;
    }
    for _j in 0..k77 {
        out += x;
    }
    for _j in 0..k78 {
        out += x;
    }
    for _j in 0..k79 {
        out += x;
    }
    for _j in 0..k80 {
        out += x;
    }
    for _j in 0..k81 {
        out += x;
    }
    for _j in 0..k82 {
        out += x;
    }
    for _j in 0..k83 {
        out += x;
    }
    for _j in 0..k84 {
        out += x;
    }
    for _j in 0..k85 {
        out += x;
    }
    for _j in 0..k86 {
        out += x;
    }
    for _j in 0..k87 {
        out += x;
    }
    for _j in 0..k88 {
        out += x;
    }
    for _j in 0..k89 {
        out += x;
    }
    for _j in 0..k90 {
        out += x;
    }
    for _j in 0..k91 {
        out += x;
    }
    for _j in 0..k92 {
        out += x;
    }
    for _j in 0..k93 {
        out += x;
    }
    for _j in 0..k94 {
        out += x;
    }
    for _j in 0..k95 {
        out += x;
    }
    for _j in 0..k96 {
        out += x;
    }
    for _j in 0..k97 {
        out += x;
    }
    for _j in 0..k98 {
        out += x;
    }
    for _j in 0..k99 {
        out += x;
    }
    for _j in 0..k100 {
        out += x;
    }
    for _j in 0..k101 {
        out += x;
    }
    for _j in 0..k102 {
        out += x;
    }
    for _j in 0..k103 {
        out += x;
    }
    for _j in 0..k104 {
        out += x;
    }
    for _j in 0..k105 {
        out += x;
    }
    for _j in 0..k106 {
        out += x;
    }
    for _j in 0..k107 {
        out += x;
    }
    for _j in 0..k108 {
        out += x;
    }
    for _j in 0..k109 {
        out += x;
    }
    for _j in 0..k110 {
        out += x;
    }
    for _j in 0..k111 {
        out += x;
    }
    for _j in 0..k112 {
        out += x;
    }
    for _j in 0..k113 {
        out += x;
    }
    for _j in 0..k114 {
        out += x;
    }
    for _j in 0..k115 {
        out += x;
    }
    for _j in 0..k116 {
        out += x;
    }
    for _j in 0..k117 {
        out += x;
    }
    for _j in 0..k118 {
        out += x;
    }
    for _j in 0..k119 {
        out += x;
    }
    for _j in 0..k120 {
        out += x;
    }
    for _j in 0..k121 {
        out += x;
    }
    for _j in 0..k122 {
        out += x;
    }
    for _j in 0..k123 {
        out += x;
    }
    for _j in 0..k124 {
        out += x;
    }
    for _j in 0..k125 {
        out += x;
    }
    for _j in 0..k126 {
        out += x;
    }
    for _j in 0..k127 {
        out += x;
    }
    for _j in 0..k128 {
        out += x;
    }
    for _j in 0..k129 {
        out += x;
    }
    for _j in 0..k130 {
        out += x;
    }
    for _j in 0..k131 {
        out += x;
    }
    for _j in 0..k132 {
        out += x;
    }
    for _j in 0..k133 {
        out += x;
    }
    for _j in 0..k134 {
        out += x;
    }
    for _j in 0..k135 {
        out += x;
    }
    for _j in 0..k136 {
        out += x;
    }
    for _j in 0..k137 {
        out += x;
    }
    for _j in 0..k138 {
        out += x;
    }
    for _j in 0..k139 {
        out += x;
    }
    for _j in 0..k140 {
        out += x;
    }
    for _j in 0..k141 {
        out += x;
    }
    for _j in 0..k142 {
        out += x;
    }
    for _j in 0..k143 {
        out += x;
    }
    for _j in 0..k144 {
        out += x;
    }
    for _j in 0..k145 {
        out += x;
    }
    for _j in 0..k146 {
        out += x;
    }
    for _j in 0..k147 {
        out += x;
    }
    for _j in 0..k148 {
        out += x;
    }
    for _j in 0..k149 {
        out += x;
    }
    for _j in 0..k150 {
        out += x;
    }
    for _j in 0..k151 {
        out += x;
    }
    for _j in 0..k152 {
        out += x;
    }
    for _j in 0..k153 {
        out += x;
    }
    for _j in 0..k154 {
        out += x;
    }
    for _j in 0..k155 {
        out += x;
    }
    for _j in 0..k156 {
        out += x;
    }
    for _j in 0..k157 {
        out += x;
    }
    for _j in 0..k158 {
        out += x;
    }
    for _j in 0..k159 {
        out += x;
    }
    for _j in 0..k160 {
        out += x;
    }
    for _j in 0..k161 {
        out += x;
    }
    for _j in 0..k162 {
        out += x;
    }
    for _j in 0..k163 {
        out += x;
    }
    for _j in 0..k164 {
        out += x;
    }
    for _j in 0..k165 {
        out += x;
    }
    for _j in 0..k166 {
        out += x;
    }
    for _j in 0..k167 {
        out += x;
    }
    for _j in 0..k168 {
        out += x;
    }
    for _j in 0..k169 {
        out += x;
    }
    for _j in 0..k170 {
        out += x;
    }
    for _j in 0..k171 {
        out += x;
    }
    for _j in 0..k172 {
        out += x;
    }
    for _j in 0..k173 {
        out += x;
    }
    for _j in 0..k174 {
        out += x;
    }
    for _j in 0..k175 {
        out += x;
    }
    for _j in 0..k176 {
        out += x;
    }
    for _j in 0..k177 {
        out += x;
    }
    for _j in 0..k178 {
        out += x;
    }
    for _j in 0..k179 {
        out += x;
    }
    for _j in 0..k180 {
        out += x;
    }
    for _j in 0..k181 {
        out += x;
    }
    for _j in 0..k182 {
        out += x;
    }
    for _j in 0..k183 {
        out += x;
    }
    for _j in 0..k184 {
        out += x;
    }
    for _j in 0..k185 {
        out += x;
    }
    for _j in 0..k186 {
        out += x;
    }
    for _j in 0..k187 {
        out += x;
    }
    for _j in 0..k188 {
        out += x;
    }
    for _j in 0..k189 {
        out += x;
    }
    for _j in 0..k190 {
        out += x;
    }
    for _j in 0..k191 {
        out += x;
    }
    for _j in 0..k192 {
        out += x;
    }
    for _j in 0..k193 {
        out += x;
    }
    for _j in 0..k194 {
        out += x;
    }
    for _j in 0..k195 {
        out += x;
    }
    for _j in 0..k196 {
        out += x;
    }
    for _j in 0..k197 {
        out += x;
    }
}

/// The gradient API's entry: three arguments, the counts in a data slice.
#[i]
fn many_wrapped<T: Scalar>(out: &mut T, x: &mut T, k: &[f64]) {
    many(
        out,
        x,
        k[0] as usize,
        k[1] as usize,
        k[2] as usize,
        k[3] as usize,
        k[4] as usize,
        k[5] as usize,
        k[6] as usize,
        k[7] as usize,
        k[8] as usize,
        k[9] as usize,
        k[10] as usize,
        k[11] as usize,
        k[12] as usize,
        k[13] as usize,
        k[14] as usize,
        k[15] as usize,
        k[16] as usize,
        k[17] as usize,
        k[18] as usize,
        k[19] as usize,
        k[20] as usize,
        k[21] as usize,
        k[22] as usize,
        k[23] as usize,
        k[24] as usize,
        k[25] as usize,
        k[26] as usize,
        k[27] as usize,
        k[28] as usize,
        k[29] as usize,
        k[30] as usize,
        k[31] as usize,
        k[32] as usize,
        k[33] as usize,
        k[34] as usize,
        k[35] as usize,
        k[36] as usize,
        k[37] as usize,
        k[38] as usize,
        k[39] as usize,
        k[40] as usize,
        k[41] as usize,
        k[42] as usize,
        k[43] as usize,
        k[44] as usize,
        k[45] as usize,
        k[46] as usize,
        k[47] as usize,
        k[48] as usize,
        k[49] as usize,
        k[50] as usize,
        k[51] as usize,
        k[52] as usize,
        k[53] as usize,
        k[54] as usize,
        k[55] as usize,
        k[56] as usize,
        k[57] as usize,
        k[58] as usize,
        k[59] as usize,
        k[60] as usize,
        k[61] as usize,
        k[62] as usize,
        k[63] as usize,
        k[64] as usize,
        k[65] as usize,
        k[66] as usize,
        k[67] as usize,
        k[68] as usize,
        k[69] as usize,
        k[70] as usize,
        k[71] as usize,
        k[72] as usize,
        k[73] as usize,
        k[74] as usize,
        k[75] as usize,
        k[76] as usize,
        k[77] as usize,
        k[78] as usize,
        k[79] as usize,
        k[80] as usize,
        k[81] as usize,
        k[82] as usize,
        k[83] as usize,
        k[84] as usize,
        k[85] as usize,
        k[86] as usize,
        k[87] as usize,
        k[88] as usize,
        k[89] as usize,
        k[90] as usize,
        k[91] as usize,
        k[92] as usize,
        k[93] as usize,
        k[94] as usize,
        k[95] as usize,
        k[96] as usize,
        k[97] as usize,
        k[98] as usize,
        k[99] as usize,
        k[100] as usize,
        k[101] as usize,
        k[102] as usize,
        k[103] as usize,
        k[104] as usize,
        k[105] as usize,
        k[106] as usize,
        k[107] as usize,
        k[108] as usize,
        k[109] as usize,
        k[110] as usize,
        k[111] as usize,
        k[112] as usize,
        k[113] as usize,
        k[114] as usize,
        k[115] as usize,
        k[116] as usize,
        k[117] as usize,
        k[118] as usize,
        k[119] as usize,
        k[120] as usize,
        k[121] as usize,
        k[122] as usize,
        k[123] as usize,
        k[124] as usize,
        k[125] as usize,
        k[126] as usize,
        k[127] as usize,
        k[128] as usize,
        k[129] as usize,
        k[130] as usize,
        k[131] as usize,
        k[132] as usize,
        k[133] as usize,
        k[134] as usize,
        k[135] as usize,
        k[136] as usize,
        k[137] as usize,
        k[138] as usize,
        k[139] as usize,
        k[140] as usize,
        k[141] as usize,
        k[142] as usize,
        k[143] as usize,
        k[144] as usize,
        k[145] as usize,
        k[146] as usize,
        k[147] as usize,
        k[148] as usize,
        k[149] as usize,
        k[150] as usize,
        k[151] as usize,
        k[152] as usize,
        k[153] as usize,
        k[154] as usize,
        k[155] as usize,
        k[156] as usize,
        k[157] as usize,
        k[158] as usize,
        k[159] as usize,
        k[160] as usize,
        k[161] as usize,
        k[162] as usize,
        k[163] as usize,
        k[164] as usize,
        k[165] as usize,
        k[166] as usize,
        k[167] as usize,
        k[168] as usize,
        k[169] as usize,
        k[170] as usize,
        k[171] as usize,
        k[172] as usize,
        k[173] as usize,
        k[174] as usize,
        k[175] as usize,
        k[176] as usize,
        k[177] as usize,
        k[178] as usize,
        k[179] as usize,
        k[180] as usize,
        k[181] as usize,
        k[182] as usize,
        k[183] as usize,
        k[184] as usize,
        k[185] as usize,
        k[186] as usize,
        k[187] as usize,
        k[188] as usize,
        k[189] as usize,
        k[190] as usize,
        k[191] as usize,
        k[192] as usize,
        k[193] as usize,
        k[194] as usize,
        k[195] as usize,
        k[196] as usize,
        k[197] as usize,
    );
}

#[test]
fn a_200_parameter_function_compiles_runs_both_ways_and_differentiates() {
    let k: Vec<f64> = (0..198).map(|j| (j % 3) as f64).collect();
    let sum: f64 = k.iter().sum();
    let (mut out, mut x) = (0.0, 1.5);
    many_wrapped(&mut out, &mut x, &k);
    assert_eq!(out, 1.5 * sum);
    many_wrapped_inv(&mut out, &mut x, &k);
    assert_eq!(out, 0.0);
    // d out / d x = Σ k
    let (g_out, g_x, _) = nilang::gradient(&ManyWrapped, (&mut 0.0, &mut 1.5, &k[..]), 0);
    assert_eq!(g_out.g, 1.0);
    assert_eq!(g_x.g, sum);
}
