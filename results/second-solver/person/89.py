import re

CODONS = {
    "TTT": "PHENYLALANINE", "TTC": "PHENYLALANINE", "TTA": "LEUCINE", "TTG": "LEUCINE",
    "CTT": "LEUCINE", "CTC": "LEUCINE", "CTA": "LEUCINE", "CTG": "LEUCINE",
    "ATT": "ISOLEUCINE", "ATC": "ISOLEUCINE", "ATA": "ISOLEUCINE", "ATG": "METHIONINE",
    "GTT": "VALINE", "GTC": "VALINE", "GTA": "VALINE", "GTG": "VALINE",
    "TCT": "SERINE", "TCC": "SERINE", "TCA": "SERINE", "TCG": "SERINE",
    "CCT": "PROLINE", "CCC": "PROLINE", "CCA": "PROLINE", "CCG": "PROLINE",
    "ACT": "THREONINE", "ACC": "THREONINE", "ACA": "THREONINE", "ACG": "THREONINE",
    "GCT": "ALANINE", "GCC": "ALANINE", "GCA": "ALANINE", "GCG": "ALANINE",
    "TAT": "TYROSINE", "TAC": "TYROSINE", "TAA": "STOP", "TAG": "STOP",
    "CAT": "HISTIDINE", "CAC": "HISTIDINE", "CAA": "GLUTAMINE", "CAG": "GLUTAMINE",
    "AAT": "ASPARAGINE", "AAC": "ASPARAGINE", "AAA": "LYSINE", "AAG": "LYSINE",
    "GAT": "ASPARTIC ACID", "GAC": "ASPARTIC ACID", "GAA": "GLUTAMIC ACID", "GAG": "GLUTAMIC ACID",
    "TGT": "CYSTEINE", "TGC": "CYSTEINE", "TGA": "STOP", "TGG": "TRYPTOPHAN",
    "CGT": "ARGININE", "CGC": "ARGININE", "CGA": "ARGININE", "CGG": "ARGININE",
    "AGT": "SERINE", "AGC": "SERINE", "AGA": "ARGININE", "AGG": "ARGININE",
    "GGT": "GLYCINE", "GGC": "GLYCINE", "GGA": "GLYCINE", "GGG": "GLYCINE",
}


def solve(observation):
    """The standard genetic code, three bases a codon from the first, up to a stop codon; a
    trailing base or two that make no codon are left out."""
    dna = re.search(r"sequence: ([ACGT]+)", observation).group(1)
    names = []
    for i in range(0, len(dna) - 2, 3):
        name = CODONS[dna[i:i + 3]]
        if name == "STOP":
            break
        names.append(name)
    return "".join(names)
