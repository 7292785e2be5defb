/**
 * Lines of business: what a company of one kind is called, how it is classified (JSIC major
 * groups and our business types, data/masters/), what it hires for and where it advertises.
 * A care operator hires care workers through ジョブメドレー and ハローワーク; a software house
 * hires engineers through Green, Wantedly and doda; a restaurant chain hires part-timers
 * through タウンワーク and バイトル.
 */

/** One trade within a line of business: its codes, name endings and what it says it does agree. */
export interface Trade {
  industries: readonly number[];
  businessTypes: readonly number[];
  suffixes: ReadonlyArray<readonly [string, string, string]>;
  fields: readonly string[];
}

export interface Profile {
  key: string;
  weight: number;
  /** JSIC major groups (industries.json sub ids) */
  industries: readonly number[];
  /** business sub-category ids (business-types.json) */
  businessTypes: readonly number[];
  /** [kanji, katakana reading, romaji] */
  suffixes: ReadonlyArray<readonly [string, string, string]>;
  /** what the summary says the company does */
  fields: readonly string[];
  /** job category major ids (job-categories.json) with their share of postings */
  jobCategories: ReadonlyArray<readonly [number, number]>;
  /** employment type ids with their share, on top of a small base share of every type */
  employment: ReadonlyArray<readonly [number, number]>;
  /** media ids (media.json) the company buys, with their odds */
  media: ReadonlyArray<readonly [number, number]>;
  /** trades a company of this line is one of (each replaces the four fields above) */
  trades?: readonly Trade[];
}

/** Free and public channels every kind of employer also turns up on. */
export const freeMedia: ReadonlyArray<readonly [number, number]> = [
  [5, 6], // Indeed
  [6, 3], // 求人ボックス
  [7, 1.5], // スタンバイ
  [11, 3], // ハローワーク
  [26, 1.5], // engage
];

export const profiles: readonly Profile[] = [
  {
    key: 'software',
    weight: 10,
    industries: [39, 40, 41],
    businessTypes: [601, 602, 604, 605, 606, 607],
    suffixes: [
      ['システムズ', 'システムズ', 'systems'],
      ['テクノロジー', 'テクノロジー', 'tech'],
      ['ソリューションズ', 'ソリューションズ', 'solutions'],
      ['情報システム', 'ジョウホウシステム', 'joho'],
      ['ソフト', 'ソフト', 'soft'],
      ['ネットワークス', 'ネットワークス', 'networks'],
      ['ラボ', 'ラボ', 'lab'],
    ],
    fields: [
      '法人向けITソリューション',
      '業務システムの受託開発',
      'SaaSの開発・運営',
      'Webサービスの企画・開発',
    ],
    jobCategories: [
      [4, 10],
      [1, 2],
      [3, 1.5],
      [13, 1.5],
      [2, 1],
    ],
    employment: [
      [1, 70],
      [2, 8],
      [5, 10],
    ],
    media: [
      [13, 4],
      [14, 4],
      [3, 4],
      [12, 3],
      [1, 3],
      [2, 2],
      [15, 2],
      [27, 1],
      [19, 2],
    ],
  },
  {
    key: 'manufacturing',
    weight: 13,
    industries: [9, 16, 18, 22, 24, 26, 28, 29, 31, 32],
    businessTypes: [101, 102, 104, 105, 106, 107, 108],
    suffixes: [
      ['工業', 'コウギョウ', 'kogyo'],
      ['製作所', 'セイサクショ', 'seisakusho'],
      ['精機', 'セイキ', 'seiki'],
      ['化学', 'カガク', 'kagaku'],
      ['電機', 'デンキ', 'denki'],
      ['食品', 'ショクヒン', 'shokuhin'],
      ['金属', 'キンゾク', 'kinzoku'],
      ['製菓', 'セイカ', 'seika'],
    ],
    fields: [
      '精密部品の加工',
      '食品の製造・販売',
      '産業用機械の設計・製造',
      '樹脂成形品の製造',
      '自動車部品の製造',
    ],
    trades: [
      {
        industries: [9],
        businessTypes: [101],
        suffixes: [
          ['食品', 'ショクヒン', 'shokuhin'],
          ['製菓', 'セイカ', 'seika'],
          ['フーズ', 'フーズ', 'foods'],
        ],
        fields: ['食品の製造・販売', '菓子の製造', '業務用食品の製造'],
      },
      {
        industries: [16, 18],
        businessTypes: [102, 103],
        suffixes: [
          ['化学', 'カガク', 'kagaku'],
          ['化成', 'カセイ', 'kasei'],
        ],
        fields: ['樹脂成形品の製造', '工業用薬品の製造'],
      },
      {
        industries: [22, 24, 26],
        businessTypes: [105],
        suffixes: [
          ['工業', 'コウギョウ', 'kogyo'],
          ['製作所', 'セイサクショ', 'seisakusho'],
          ['金属', 'キンゾク', 'kinzoku'],
          ['鉄工所', 'テッコウショ', 'tekkosho'],
        ],
        fields: ['精密部品の加工', '産業用機械の設計・製造', '金属プレス加工'],
      },
      {
        industries: [28, 29],
        businessTypes: [104, 107],
        suffixes: [
          ['電機', 'デンキ', 'denki'],
          ['精機', 'セイキ', 'seiki'],
          ['電子', 'デンシ', 'denshi'],
        ],
        fields: ['電子部品の製造', '制御機器の設計・製造', '計測機器の製造'],
      },
      {
        industries: [31],
        businessTypes: [106],
        suffixes: [
          ['工業', 'コウギョウ', 'kogyo'],
          ['製作所', 'セイサクショ', 'seisakusho'],
        ],
        fields: ['自動車部品の製造', '輸送機器部品の加工'],
      },
    ],
    jobCategories: [
      [10, 8],
      [5, 4],
      [1, 1.5],
      [2, 1],
      [11, 1],
    ],
    employment: [
      [1, 50],
      [2, 15],
      [4, 15],
      [3, 8],
    ],
    media: [
      [16, 3],
      [29, 3],
      [1, 2],
      [2, 2],
      [3, 1.5],
      [8, 2],
      [17, 1],
      [23, 1],
    ],
  },
  {
    key: 'construction',
    weight: 9,
    industries: [6, 7, 8],
    businessTypes: [1001, 1002, 1003, 1006],
    suffixes: [
      ['建設', 'ケンセツ', 'kensetsu'],
      ['工務店', 'コウムテン', 'komuten'],
      ['土木', 'ドボク', 'doboku'],
      ['設備', 'セツビ', 'setsubi'],
      ['電設', 'デンセツ', 'densetsu'],
      ['組', 'グミ', 'gumi'],
      ['ホーム', 'ホーム', 'home'],
    ],
    fields: ['建設・土木工事', '地域密着型の住宅リフォーム', '空調・衛生設備工事', '電気設備工事'],
    jobCategories: [
      [6, 10],
      [1, 1.5],
      [11, 1],
      [2, 1],
    ],
    employment: [
      [1, 70],
      [2, 8],
      [5, 6],
    ],
    media: [
      [1, 2],
      [2, 2],
      [16, 3],
      [29, 2],
      [4, 2],
      [23, 1],
    ],
  },
  {
    key: 'care',
    weight: 9,
    industries: [83, 85],
    businessTypes: [1101, 1102, 1103, 1104, 1105, 1106],
    suffixes: [
      ['ケア', 'ケア', 'care'],
      ['メディカル', 'メディカル', 'medical'],
      ['ケアサービス', 'ケアサービス', 'careservice'],
      ['福祉サービス', 'フクシサービス', 'fukushi'],
      ['ライフサポート', 'ライフサポート', 'lifesupport'],
    ],
    fields: ['介護サービス', '訪問介護・デイサービス', '保育園の運営', '調剤薬局の運営', '障害福祉サービス'],
    jobCategories: [
      [7, 12],
      [2, 1],
    ],
    employment: [
      [1, 45],
      [4, 35],
      [2, 8],
    ],
    media: [
      [18, 6],
      [17, 2],
      [8, 2],
      [24, 1],
      [2, 1],
    ],
  },
  {
    key: 'food_retail',
    weight: 11,
    industries: [76, 77, 56, 57, 58, 60, 78],
    businessTypes: [501, 301, 302, 303, 305, 503],
    suffixes: [
      ['フーズ', 'フーズ', 'foods'],
      ['ダイニング', 'ダイニング', 'dining'],
      ['商店', 'ショウテン', 'shoten'],
      ['ストア', 'ストア', 'store'],
      ['リテイリング', 'リテイリング', 'retailing'],
      ['ビューティー', 'ビューティー', 'beauty'],
    ],
    fields: [
      '飲食店の運営',
      'スーパーマーケットの運営',
      '食料品の小売',
      '美容室の運営',
      'ドラッグストアの運営',
    ],
    trades: [
      {
        industries: [76, 77],
        businessTypes: [501],
        suffixes: [
          ['フーズ', 'フーズ', 'foods'],
          ['ダイニング', 'ダイニング', 'dining'],
          ['キッチン', 'キッチン', 'kitchen'],
        ],
        fields: ['飲食店の運営', '居酒屋チェーンの運営', '弁当・惣菜の製造販売'],
      },
      {
        industries: [56, 57, 58, 60],
        businessTypes: [301, 302, 303, 305],
        suffixes: [
          ['商店', 'ショウテン', 'shoten'],
          ['ストア', 'ストア', 'store'],
          ['リテイリング', 'リテイリング', 'retailing'],
        ],
        fields: ['スーパーマーケットの運営', '食料品の小売', 'ドラッグストアの運営', '衣料品の小売'],
      },
      {
        industries: [78],
        businessTypes: [503],
        suffixes: [
          ['ビューティー', 'ビューティー', 'beauty'],
          ['ヘアー', 'ヘアー', 'hair'],
        ],
        fields: ['美容室の運営', 'エステティックサロンの運営'],
      },
    ],
    jobCategories: [
      [9, 6],
      [8, 6],
      [2, 0.5],
      [11, 0.5],
    ],
    employment: [
      [4, 60],
      [1, 25],
      [2, 8],
    ],
    media: [
      [8, 5],
      [9, 5],
      [24, 3],
      [17, 2],
      [28, 1],
    ],
  },
  {
    key: 'logistics',
    weight: 7,
    industries: [43, 44, 47, 48],
    businessTypes: [1301, 1305],
    suffixes: [
      ['運輸', 'ウンユ', 'unyu'],
      ['ロジスティクス', 'ロジスティクス', 'logistics'],
      ['物流', 'ブツリュウ', 'butsuryu'],
      ['急便', 'キュウビン', 'kyubin'],
      ['倉庫', 'ソウコ', 'soko'],
      ['交通', 'コウツウ', 'kotsu'],
    ],
    fields: ['物流センターの運営', '一般貨物自動車運送', '倉庫・保管', 'タクシー・バス事業'],
    trades: [
      {
        industries: [44, 48],
        businessTypes: [1301],
        suffixes: [
          ['運輸', 'ウンユ', 'unyu'],
          ['急便', 'キュウビン', 'kyubin'],
          ['ロジスティクス', 'ロジスティクス', 'logistics'],
        ],
        fields: ['一般貨物自動車運送', '企業間の配送'],
      },
      {
        industries: [47],
        businessTypes: [1305],
        suffixes: [
          ['倉庫', 'ソウコ', 'soko'],
          ['物流', 'ブツリュウ', 'butsuryu'],
        ],
        fields: ['物流センターの運営', '倉庫・保管'],
      },
      {
        industries: [43],
        businessTypes: [1301],
        suffixes: [
          ['交通', 'コウツウ', 'kotsu'],
          ['自動車', 'ジドウシャ', 'jidosha'],
        ],
        fields: ['タクシー事業', '路線バス・貸切バス事業'],
      },
    ],
    jobCategories: [
      [11, 10],
      [2, 1],
      [1, 0.5],
    ],
    employment: [
      [1, 55],
      [4, 25],
      [2, 10],
    ],
    media: [
      [16, 3],
      [8, 3],
      [9, 2],
      [29, 2],
      [4, 1],
    ],
  },
  {
    key: 'trading',
    weight: 10,
    industries: [50, 51, 52, 53, 54, 55],
    businessTypes: [201, 202, 203, 204, 205],
    suffixes: [
      ['商事', 'ショウジ', 'shoji'],
      ['物産', 'ブッサン', 'bussan'],
      ['産業', 'サンギョウ', 'sangyo'],
      ['トレーディング', 'トレーディング', 'trading'],
      ['商会', 'ショウカイ', 'shokai'],
    ],
    fields: ['産業資材の専門商社', '食品の卸売', '医療機器の販売', '建築資材の卸売', '電子部品の販売'],
    jobCategories: [
      [1, 8],
      [2, 3],
      [11, 1],
      [3, 1],
    ],
    employment: [
      [1, 70],
      [2, 10],
    ],
    media: [
      [1, 3],
      [2, 3],
      [3, 2],
      [4, 3],
      [23, 2],
      [15, 1],
    ],
  },
  {
    key: 'real_estate',
    weight: 6,
    industries: [68, 69, 70],
    businessTypes: [1004, 1005, 1002],
    suffixes: [
      ['不動産', 'フドウサン', 'fudosan'],
      ['地所', 'ジショ', 'jisho'],
      ['ハウジング', 'ハウジング', 'housing'],
      ['エステート', 'エステート', 'estate'],
      ['リース', 'リース', 'lease'],
    ],
    fields: ['賃貸住宅の仲介・管理', '分譲マンションの開発', 'オフィスビルの賃貸', '建設機械のレンタル'],
    trades: [
      {
        industries: [68, 69],
        businessTypes: [1004, 1005],
        suffixes: [
          ['不動産', 'フドウサン', 'fudosan'],
          ['地所', 'ジショ', 'jisho'],
          ['エステート', 'エステート', 'estate'],
        ],
        fields: ['賃貸住宅の仲介・管理', '分譲マンションの開発', 'オフィスビルの賃貸'],
      },
      {
        industries: [68],
        businessTypes: [1002],
        suffixes: [
          ['ハウジング', 'ハウジング', 'housing'],
          ['ホーム', 'ホーム', 'home'],
        ],
        fields: ['注文住宅の設計・施工', '建売住宅の販売'],
      },
      {
        industries: [70],
        businessTypes: [406],
        suffixes: [
          ['リース', 'リース', 'lease'],
          ['レンタル', 'レンタル', 'rental'],
        ],
        fields: ['建設機械のレンタル', '事務機器のリース'],
      },
    ],
    jobCategories: [
      [1, 8],
      [2, 2],
      [6, 1],
    ],
    employment: [
      [1, 75],
      [2, 8],
    ],
    media: [
      [4, 3],
      [3, 2],
      [1, 2],
      [2, 2],
      [23, 1],
    ],
  },
  {
    key: 'professional',
    weight: 7,
    industries: [72, 73, 74],
    businessTypes: [506, 703, 706, 904],
    suffixes: [
      ['コンサルティング', 'コンサルティング', 'consulting'],
      ['総研', 'ソウケン', 'soken'],
      ['デザイン', 'デザイン', 'design'],
      ['パートナーズ', 'パートナーズ', 'partners'],
      ['エージェンシー', 'エージェンシー', 'agency'],
    ],
    fields: [
      '経営コンサルティング',
      'Webマーケティング支援',
      '広告の企画・制作',
      '会計・税務のアドバイザリー',
    ],
    trades: [
      {
        industries: [72],
        businessTypes: [506, 904],
        suffixes: [
          ['コンサルティング', 'コンサルティング', 'consulting'],
          ['総研', 'ソウケン', 'soken'],
          ['パートナーズ', 'パートナーズ', 'partners'],
        ],
        fields: ['経営コンサルティング', '会計・税務のアドバイザリー', '人事制度の設計支援'],
      },
      {
        industries: [73],
        businessTypes: [703, 706],
        suffixes: [
          ['エージェンシー', 'エージェンシー', 'agency'],
          ['企画', 'キカク', 'kikaku'],
          ['広告社', 'コウコクシャ', 'kokokusha'],
        ],
        fields: ['広告の企画・制作', 'Webマーケティング支援'],
      },
      {
        industries: [72, 74],
        businessTypes: [706, 1006],
        suffixes: [
          ['デザイン', 'デザイン', 'design'],
          ['設計事務所', 'セッケイジムショ', 'sekkei'],
        ],
        fields: ['グラフィックデザイン', '建築設計'],
      },
    ],
    jobCategories: [
      [14, 6],
      [3, 4],
      [13, 3],
      [1, 2],
      [2, 1],
    ],
    employment: [
      [1, 70],
      [2, 6],
      [5, 12],
    ],
    media: [
      [12, 4],
      [21, 3],
      [20, 2],
      [22, 2],
      [13, 2],
      [27, 2],
      [3, 2],
    ],
  },
  {
    key: 'education',
    weight: 4,
    industries: [81, 82],
    businessTypes: [1201, 1202, 1203, 1204, 1205],
    suffixes: [
      ['スクール', 'スクール', 'school'],
      ['ゼミナール', 'ゼミナール', 'seminar'],
      ['アカデミー', 'アカデミー', 'academy'],
      ['教育', 'キョウイク', 'kyoiku'],
    ],
    fields: ['学習塾の運営', '英会話スクールの運営', '社会人向け研修', 'eラーニング教材の開発'],
    jobCategories: [
      [12, 10],
      [2, 1],
      [1, 1],
    ],
    employment: [
      [4, 40],
      [1, 40],
      [2, 10],
    ],
    media: [
      [9, 3],
      [8, 3],
      [24, 2],
      [1, 1],
      [2, 1],
    ],
  },
  {
    key: 'finance',
    weight: 3,
    industries: [63, 64, 65, 66, 67],
    businessTypes: [402, 403, 405, 406, 407, 408],
    suffixes: [
      ['ファイナンス', 'ファイナンス', 'finance'],
      ['証券', 'ショウケン', 'shoken'],
      ['キャピタル', 'キャピタル', 'capital'],
      ['保険サービス', 'ホケンサービス', 'hoken'],
    ],
    fields: ['法人向けリース', '保険代理店業務', '資産運用の助言', '個人向け融資'],
    trades: [
      {
        industries: [64],
        businessTypes: [406],
        suffixes: [
          ['ファイナンス', 'ファイナンス', 'finance'],
          ['クレジット', 'クレジット', 'credit'],
        ],
        fields: ['個人向け融資', '法人向けファクタリング'],
      },
      {
        industries: [65],
        businessTypes: [403, 407],
        suffixes: [
          ['証券', 'ショウケン', 'shoken'],
          ['キャピタル', 'キャピタル', 'capital'],
          ['アセットマネジメント', 'アセットマネジメント', 'am'],
        ],
        fields: ['資産運用の助言', '株式の売買仲介'],
      },
      {
        industries: [67],
        businessTypes: [405],
        suffixes: [['保険サービス', 'ホケンサービス', 'hoken']],
        fields: ['保険代理店業務'],
      },
    ],
    jobCategories: [
      [1, 6],
      [2, 3],
      [14, 2],
      [4, 1],
    ],
    employment: [
      [1, 70],
      [2, 12],
    ],
    media: [
      [12, 3],
      [21, 2],
      [3, 2],
      [1, 2],
      [20, 1],
    ],
  },
];

/** Staffing firms: many offices, postings for every kind of work. */
export const staffingProfile: Profile = {
  key: 'staffing',
  weight: 0,
  industries: [91],
  businessTypes: [901, 902, 507],
  suffixes: [
    ['スタッフ', 'スタッフ', 'staff'],
    ['キャリア', 'キャリア', 'career'],
    ['ワークス', 'ワークス', 'works'],
    ['人材サービス', 'ジンザイサービス', 'jinzai'],
    ['ヒューマンリソース', 'ヒューマンリソース', 'hr'],
  ],
  fields: ['人材派遣・人材紹介', '製造業向けの人材派遣', 'コールセンター業務の請負', '事務職の派遣'],
  jobCategories: [
    [2, 5],
    [10, 4],
    [11, 3],
    [8, 2],
    [4, 2],
    [7, 2],
    [1, 1],
    [9, 1],
  ],
  employment: [
    [3, 50],
    [6, 10],
    [4, 15],
    [1, 10],
  ],
  media: [
    [8, 4],
    [9, 4],
    [24, 3],
    [17, 2],
    [1, 2],
    [3, 2],
    [16, 2],
  ],
};

/** Public bodies and associations (独立行政法人, local government, 一般社団法人). */
export const publicProfile: Profile = {
  key: 'public',
  weight: 0,
  industries: [71, 93, 97, 98],
  businessTypes: [801, 802, 803, 804, 805],
  suffixes: [],
  fields: [
    '調査研究と政策提言',
    '業界の振興と会員支援',
    '会員企業の支援と業界の振興',
    '資格試験と講習の実施',
  ],
  jobCategories: [
    [15, 6],
    [2, 4],
    [4, 1],
    [7, 1],
  ],
  employment: [
    [2, 30],
    [7, 20],
    [1, 30],
    [4, 10],
  ],
  media: [
    [2, 2],
    [1, 1],
    [3, 1],
  ],
};
