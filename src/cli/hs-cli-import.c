/* hs-cli-import.c — heatscope-cli import FORMAT SOURCE... -o DATASET */
#include "hs-cli.h"

#include <stdio.h>

int
hs_cli_import (int argc, char **argv)
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(HsDataset) dataset = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *output = NULL;
  g_autofree char *links = NULL;
  g_autofree char *classes = NULL;
  g_autofree char *modality = NULL;
  gboolean force = FALSE, quiet = FALSE;
  HsImportSummary summary = { 0 };
  HsImportOptions options = { 0 };
  GOptionEntry entries[] = {
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "Dataset folder to write", "DATASET" },
    { "links", 0, 0, G_OPTION_ARG_FILENAME, &links,
      "covid-seg: CSV \"image,sentence,target\" linking sentences (number or text) to targets", "CSV" },
    { "classes", 0, 0, G_OPTION_ARG_FILENAME, &classes,
      "yolo: class names, one a line (or a data.yaml)", "FILE" },
    { "modality", 0, 0, G_OPTION_ARG_FILENAME, &modality,
      "Imaging modality recorded on every instance (MR, CR, DX, CT...; replaces the source's)",
      "TEXT" },
    { "force", 'f', 0, G_OPTION_ARG_NONE, &force, "Replace a dataset already in the folder", NULL },
    { "quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet, "Do not list the skipped rows", NULL },
    { NULL }
  };

  context = g_option_context_new ("FORMAT SOURCE... — write a dataset from a public format");
  g_option_context_add_main_entries (context, entries, NULL);
  g_option_context_set_summary (context,
    "Formats and their sources:\n"
    "  covid-seg FOLDER            COVID-19 segmentation set (structure.csv, metadata.csv,\n"
    "                              images/, masks/); notes become sentences, classes targets\n"
    "  coco ANNOTATIONS.json [IMAGES]   COCO boxes, polygons and RLE (images default to\n"
    "                              images/ beside the JSON)\n"
    "  yolo FOLDER [CLASSES]       YOLO txt boxes beside (or in labels/ for) each image\n"
    "  nih-bbox BBox_List_2017.csv [IMAGES]   NIH ChestX-ray14 boxes (1024² pixel space)\n"
    "  ms-cxr MS_CXR.csv [ROOT]    MS-CXR phrases and boxes ('path' relative to ROOT,\n"
    "                              default: the CSV's folder)\n"
    "  chexlocalize GT.json [ROOT]  CheXlocalize polygons or RLE masks (images under\n"
    "                              ROOT/valid|test/patientP/studyS/viewV_frontal.jpg)\n"
    "                              Saliency pickles: tools/convert-chexlocalize-maps, then\n"
    "                              npy-folder\n"
    "  imagenome GOLD.txt|SCENE.json|FOLDER [IMAGES]   Chest ImaGenome gold TSV or scene\n"
    "                              graphs; images are IMAGES/<image_id>.jpg\n"
    "  npy-folder MAPS             attach MAPS/<instance>__<model>__<query-id>.npy to the\n"
    "                              dataset already in -o DATASET\n"
    "  vindr-cxr annotations.csv [IMAGES]   VinDr-CXR boxes per radiologist (IMAGES/<image_id>\n"
    "                              .dicom|.dcm|.png; default: the CSV's folder)\n"
    "  rsna-pneumonia stage_2_train_labels.csv [IMAGES]   RSNA Pneumonia boxes (1024² space)\n"
    "  siim-acr train-rle.csv [IMAGES]   SIIM-ACR Pneumothorax run-length masks (images found\n"
    "                              anywhere below IMAGES as <ImageId>.dcm or .png)\n"
    "  chestx-det ChestX_Det.json [IMAGES]   ChestX-Det(10) boxes and polygons\n"
    "  voc ANNOTATIONS [IMAGES]    Pascal VOC XML files (images default to JPEGImages/)\n"
    "\n"
    "Rows that cannot be used are listed on stderr as FILE:LINE: reason and skipped; the\n"
    "summary line counts instances, sentences, targets and skipped rows.\n"
    "Modality: each instance's \"modality\" metadata is what --modality says, else what the\n"
    "source says: covid-seg's metadata.csv modality column, coco's images[].meta.modality,\n"
    "the Modality (0008,0060) of a DICOM image (any format); the other formats' files say\n"
    "none. An MR instance is in no chest subset (one_lung, mdrb).\n"
    "Details per format: docs/importers.md.");
  if (!hs_cli_parse (context, &argc, &argv, "import"))
    return HS_CLI_EXIT_USAGE;
  if (argc < 3)
    {
      hs_cli_error ("import", argc < 2 ? "missing FORMAT and SOURCE" : "missing SOURCE");
      return HS_CLI_EXIT_USAGE;
    }
  if (output == NULL)
    {
      hs_cli_error ("import", "missing -o DATASET (the folder to write)");
      return HS_CLI_EXIT_USAGE;
    }

  if (modality != NULL && !hs_import_check_modality (argv[1], modality, &error))
    {
      hs_cli_error ("import", "--modality %s", error->message);
      return HS_CLI_EXIT_USAGE;
    }

  options.links = links;
  options.modality = modality;
  options.classes = classes;
  options.force = force;
  dataset = hs_import (argv[1], (const char * const *) argv + 2, output, &options, &summary, &error);
  if (summary.skipped != NULL && !quiet)
    for (guint i = 0; i < summary.skipped->len; i++)
      {
        g_autofree char *line = hs_import_skip_to_string (g_ptr_array_index (summary.skipped, i));
        hs_cli_print_line (stderr, line);
      }
  if (dataset == NULL)
    {
      hs_cli_error ("import", "%s", error->message);
      hs_import_summary_clear (&summary);
      return g_error_matches (error, HS_IMPORT_ERROR, HS_IMPORT_ERROR_USAGE) ? HS_CLI_EXIT_USAGE
                                                                             : HS_CLI_EXIT_INPUT;
    }
  if (summary.n_maps > 0)
    printf ("imported %u instances, %u sentences, %u targets, %u maps; %u rows skipped -> %s\n",
            summary.n_instances, summary.n_sentences, summary.n_targets, summary.n_maps,
            summary.skipped != NULL ? summary.skipped->len : 0, hs_dataset_get_manifest_path (dataset));
  else
    printf ("imported %u instances, %u sentences, %u targets; %u rows skipped -> %s\n",
            summary.n_instances, summary.n_sentences, summary.n_targets,
            summary.skipped != NULL ? summary.skipped->len : 0, hs_dataset_get_manifest_path (dataset));
  hs_import_summary_clear (&summary);
  return HS_CLI_EXIT_OK;
}
